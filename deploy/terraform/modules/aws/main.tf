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

# The zone's default subnet: the database VMs get fixed private
# addresses in it, known before they exist, so that each boot script
# knows its cluster's seeds.
data "aws_subnet" "zone" {
  availability_zone = var.availability_zone
  default_for_az    = true
}

locals {
  # AWS keeps a subnet's first four addresses; the offset comes from the
  # name unless given, so that experiments sharing a zone rarely meet.
  db_ip_offset = var.db_ip_offset != null ? var.db_ip_offset : 16 + parseint(substr(sha1(var.name), 0, 3), 16) % 3000
  db_ips       = [for i in range(var.db_count) : cidrhost(data.aws_subnet.zone.cidr_block, local.db_ip_offset + i)]
  # Boot script of a database VM (@NODE_INDEX@ is its index): stripe and
  # mount the instance-store NVMe disks at /mnt/data, install Docker and
  # node_exporter, start the database, and on the first VM run db_init.
  db_startup     = <<-EOT
    #!/bin/bash
    set -euo pipefail
    NODE_INDEX=@NODE_INDEX@
    SEEDS=${join(",", local.db_ips)}
    SEED=$${SEEDS%%,*}
    SELF=$(echo "$SEEDS" | cut -d, -f$((NODE_INDEX + 1)))
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
    # Retried until the database takes it; on a reboot it answers that
    # it is done already.
    if [ "$NODE_INDEX" = 0 ] && [ -n "${var.db_init}" ]; then
      until out=$(docker exec db ${var.db_init} 2>&1) || echo "$out" | grep -qi "already"; do sleep 5; done
    fi
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
  subnet_id              = data.aws_subnet.zone.id
  private_ip             = local.db_ips[count.index]
  vpc_security_group_ids = [aws_security_group.db.id]
  user_data              = replace(local.db_startup, "@NODE_INDEX@", tostring(count.index))
  tags                   = { Name = "${var.name}-db-${count.index + 1}" }
}

resource "aws_instance" "loader" {
  count                  = var.loader_count
  ami                    = var.ami
  instance_type          = var.loader_machine_type
  availability_zone      = var.availability_zone
  key_name               = aws_key_pair.operator.key_name
  subnet_id              = data.aws_subnet.zone.id
  vpc_security_group_ids = [aws_security_group.loader.id]
  user_data              = local.loader_startup
  tags                   = { Name = "${var.name}-loader-${count.index + 1}" }
}
