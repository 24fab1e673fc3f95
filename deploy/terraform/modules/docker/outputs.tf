output "db_internal_ips" {
  description = "Database containers' addresses on the deployment's network, which the loaders use."
  value       = [for c in docker_container.db : c.network_data[0].ip_address]
}

output "db_external_ips" {
  description = "The same addresses: the operator's machine reaches the network through its bridge."
  value       = [for c in docker_container.db : c.network_data[0].ip_address]
}

output "loader_external_ips" {
  description = "Loader containers' addresses, for SSH."
  value       = [for c in docker_container.loader : c.network_data[0].ip_address]
}

output "db_port" {
  description = "The database's client port."
  value       = var.db_port
}
