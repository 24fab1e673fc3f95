output "db_internal_ips" {
  description = "Database VMs' internal addresses, which the loaders use."
  value       = google_compute_instance.db[*].network_interface[0].network_ip
}

output "db_external_ips" {
  description = "Database VMs' external addresses (SSH and node_exporter from the operator's range)."
  value       = google_compute_instance.db[*].network_interface[0].access_config[0].nat_ip
}

output "loader_external_ips" {
  description = "Loader VMs' external addresses, for SSH."
  value       = google_compute_instance.loader[*].network_interface[0].access_config[0].nat_ip
}

output "db_port" {
  description = "The database's client port."
  value       = var.db_port
}
