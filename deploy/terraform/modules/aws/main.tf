terraform {
  required_version = ">= 1.5"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.0"
    }
  }
}

provider "aws" {
  region = var.region
}

locals {
  # Boot script of a database VM: stripe and mount the instance-store
  # NVMe disks at /mnt/data, install Docker and node_exporter, start the
  # database.
  db_startup     = <<-EOT
    #!/bin/bash
    set -euo pipefail
    disks=$(lsblk -dpno NAME,MODEL | awk '/Instance Storage/ {print $1}')
    mkdir -p /mnt/data
    if [ -n "$disks" ]; then
      n=$(echo "$disks" | wc -w)
      if [ "$n" -gt 1 ]; then
        mdadm --create /dev/md0 --level=0 --raid-devices="$n" $disks
        dev=/dev/md0
      else
        dev=$disks
      fi
      mkfs.xfs -f "$dev"
      mount -o noatime,discard "$dev" /mnt/data
    fi
    apt-get update -q && apt-get install -y -q docker.io prometheus-node-exporter
    systemctl enable --now prometheus-node-exporter
    docker run -d --name db --restart unless-stopped --network host \
      -v /mnt/data:${var.db_data_dir} ${var.db_docker_flags} ${var.db_image} ${var.db_args}
  EOT
  loader_startup = <<-EOT
    #!/bin/bash
    set -euo pipefail
    apt-get update -q && apt-get install -y -q prometheus-node-exporter chrony
    systemctl enable --now prometheus-node-exporter chrony
  EOT
}

resource "aws_key_pair" "operator" {
  key_name   = "${var.name}-operator"
  public_key = var.ssh_public_key
}

resource "aws_security_group" "loader" {
  name = "${var.name}-loader"
  ingress {
    description = "SSH and node_exporter from the operator only"
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = [var.operator_cidr]
  }
  ingress {
    from_port   = 9100
    to_port     = 9100
    protocol    = "tcp"
    cidr_blocks = [var.operator_cidr]
  }
  egress {
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["0.0.0.0/0"]
  }
}

resource "aws_security_group" "db" {
  name = "${var.name}-db"
  ingress {
    description = "The database port from the operator only, for the experiment's own connection"
    from_port   = var.db_port
    to_port     = var.db_port
    protocol    = "tcp"
    cidr_blocks = [var.operator_cidr]
  }
  ingress {
    description     = "Every port from the loaders and the other database VMs, never the internet"
    from_port       = 0
    to_port         = 65535
    protocol        = "tcp"
    security_groups = [aws_security_group.loader.id]
    self            = true
  }
  ingress {
    description = "SSH and node_exporter from the operator only"
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = [var.operator_cidr]
  }
  ingress {
    from_port   = 9100
    to_port     = 9100
    protocol    = "tcp"
    cidr_blocks = [var.operator_cidr]
  }
  egress {
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["0.0.0.0/0"]
  }
}

resource "aws_instance" "db" {
  count                  = var.db_count
  ami                    = var.ami
  instance_type          = var.db_machine_type
  availability_zone      = var.availability_zone
  key_name               = aws_key_pair.operator.key_name
  vpc_security_group_ids = [aws_security_group.db.id]
  user_data              = local.db_startup
  tags                   = { Name = "${var.name}-db-${count.index + 1}" }
}

resource "aws_instance" "loader" {
  count                  = var.loader_count
  ami                    = var.ami
  instance_type          = var.loader_machine_type
  availability_zone      = var.availability_zone
  key_name               = aws_key_pair.operator.key_name
  vpc_security_group_ids = [aws_security_group.loader.id]
  user_data              = local.loader_startup
  tags                   = { Name = "${var.name}-loader-${count.index + 1}" }
}
