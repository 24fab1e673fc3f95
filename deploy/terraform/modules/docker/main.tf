# Containers standing in for cloud VMs, on one Docker Engine: the same
# interface and outputs as the gcp and aws modules, so that the whole
# Terraform path (init, apply, outputs, readiness, loaders over ssh,
# node_exporter on every host, destroy) runs for real without a cloud.
terraform {
  required_providers {
    docker = {
      source  = "kreuzwerker/docker"
      version = ">= 3.0.0"
    }
  }
}

# The engine of DOCKER_HOST (or the default socket).
provider "docker" {}

locals {
  labels = {
    "dbarena.terraform" = var.name
  }
}

# A network of the deployment's own: the firewall's stand-in. The
# containers reach each other on it, and the operator's machine reaches
# them through its bridge; containers on the engine's other networks do
# not (no route between bridges).
resource "docker_network" "net" {
  name = "dbarena-${var.name}"
  dynamic "labels" {
    for_each = local.labels
    content {
      label = labels.key
      value = labels.value
    }
  }
}

resource "docker_volume" "data" {
  count = var.db_count
  name  = "dbarena-${var.name}-data-${count.index + 1}"
  dynamic "labels" {
    for_each = local.labels
    content {
      label = labels.key
      value = labels.value
    }
  }
}

resource "docker_container" "db" {
  count    = var.db_count
  name     = "dbarena-${var.name}-db-${count.index + 1}"
  image    = var.db_image
  command  = length(var.db_command) > 0 ? var.db_command : null
  env      = var.db_env
  hostname = "db-${count.index + 1}"
  must_run = true
  # db-1, db-2...: the names a cluster's nodes seed each other by
  # (the provider's CASSANDRA_SEEDS=db-1), as a cloud's VMs by address.
  networks_advanced {
    name    = docker_network.net.id
    aliases = ["db-${count.index + 1}"]
  }
  mounts {
    type   = "volume"
    source = docker_volume.data[count.index].name
    target = var.db_data_dir
  }
  dynamic "labels" {
    for_each = local.labels
    content {
      label = labels.key
      value = labels.value
    }
  }
}

# node_exporter beside each database, in its network namespace: the
# VM's address answers on 9100 as the cloud modules' VMs do.
resource "docker_container" "db_node_exporter" {
  count        = var.db_count
  name         = "dbarena-${var.name}-db-${count.index + 1}-node-exporter"
  image        = var.vm_image
  env          = ["VM_SSHD=0"]
  network_mode = "container:${docker_container.db[count.index].id}"
  must_run     = true
  dynamic "labels" {
    for_each = local.labels
    content {
      label = labels.key
      value = labels.value
    }
  }
}

resource "docker_container" "loader" {
  count    = var.loader_count
  name     = "dbarena-${var.name}-loader-${count.index + 1}"
  image    = var.vm_image
  hostname = "loader-${count.index + 1}"
  env      = ["VM_USER=${var.ssh_user}", "VM_SSH_PUBLIC_KEY=${var.ssh_public_key}"]
  must_run = true
  networks_advanced {
    name = docker_network.net.id
  }
  dynamic "labels" {
    for_each = local.labels
    content {
      label = labels.key
      value = labels.value
    }
  }
}
