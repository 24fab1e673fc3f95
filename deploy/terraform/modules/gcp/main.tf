terraform {
  required_version = ">= 1.5"
  required_providers {
    google = {
      source  = "hashicorp/google"
      version = ">= 5.0"
    }
  }
}

provider "google" {
  project = var.project
  zone    = var.zone
}

locals {
  db_tag     = "${var.name}-db"
  loader_tag = "${var.name}-loader"
  region     = join("-", slice(split("-", var.zone), 0, 2))
  # The database VMs' internal addresses, reserved before the VMs exist
  # so that each boot script knows its cluster's seeds.
  db_ips = google_compute_address.db_internal[*].address
  # Boot script of a database VM (@NODE_INDEX@ is its index): stripe and
  # mount the local NVMe SSDs at /mnt/data, install Docker and
  # node_exporter, start the database, and on the first VM run db_init.
  db_startup     = <<-EOT
    #!/bin/bash
    set -euo pipefail
    NODE_INDEX=@NODE_INDEX@
    SEEDS=${join(",", local.db_ips)}
    SEED=$${SEEDS%%,*}
    SELF=$(echo "$SEEDS" | cut -d, -f$((NODE_INDEX + 1)))
    ssds=$(ls /dev/disk/by-id/google-local-nvme-ssd-* 2>/dev/null || true)
    mkdir -p /mnt/data
    if [ -n "$ssds" ]; then
      n=$(echo "$ssds" | wc -w)
      if [ "$n" -gt 1 ]; then
        mdadm --create /dev/md0 --level=0 --raid-devices="$n" $ssds
        dev=/dev/md0
      else
        dev=$ssds
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

resource "google_compute_address" "db_internal" {
  count        = var.db_count
  name         = "${var.name}-db-${count.index + 1}-internal"
  region       = local.region
  subnetwork   = "default"
  address_type = "INTERNAL"
}

resource "google_compute_instance" "db" {
  count        = var.db_count
  name         = "${var.name}-db-${count.index + 1}"
  machine_type = var.db_machine_type
  tags         = [local.db_tag]

  boot_disk {
    initialize_params {
      image = "debian-cloud/debian-12"
      size  = 50
    }
  }

  dynamic "scratch_disk" {
    for_each = range(var.local_ssds)
    content {
      interface = "NVME"
    }
  }

  network_interface {
    network    = "default"
    network_ip = google_compute_address.db_internal[count.index].address
    access_config {}
  }

  metadata = {
    ssh-keys       = "${var.ssh_user}:${var.ssh_public_key}"
    startup-script = replace(local.db_startup, "@NODE_INDEX@", tostring(count.index))
  }
}

resource "google_compute_instance" "loader" {
  count        = var.loader_count
  name         = "${var.name}-loader-${count.index + 1}"
  machine_type = var.loader_machine_type
  tags         = [local.loader_tag]

  boot_disk {
    initialize_params {
      image = "debian-cloud/debian-12"
      size  = 30
    }
  }

  network_interface {
    network = "default"
    access_config {}
  }

  metadata = {
    ssh-keys       = "${var.ssh_user}:${var.ssh_public_key}"
    startup-script = local.loader_startup
  }
}

# The database VMs admit the loaders and each other (client port,
# cluster traffic, node_exporter) by tag, never the internet.
resource "google_compute_firewall" "db_from_loaders" {
  name        = "${var.name}-db-from-loaders"
  network     = "default"
  source_tags = [local.loader_tag, local.db_tag]
  target_tags = [local.db_tag]
  allow {
    protocol = "tcp"
  }
}

# The operator reaches SSH, node_exporter and the database (for the
# experiment's own connection) from their own address only.
resource "google_compute_firewall" "operator" {
  name          = "${var.name}-operator"
  network       = "default"
  source_ranges = [var.operator_cidr]
  target_tags   = [local.db_tag, local.loader_tag]
  allow {
    protocol = "tcp"
    ports    = ["22", "9100", tostring(var.db_port)]
  }
}
