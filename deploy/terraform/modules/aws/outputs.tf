output "db_internal_ips" {
  description = "Database VMs' private addresses, which the loaders use."
  value       = aws_instance.db[*].private_ip
}

output "db_external_ips" {
  description = "Database VMs' public addresses (SSH and node_exporter from the operator's range)."
  value       = aws_instance.db[*].public_ip
}

output "loader_external_ips" {
  description = "Loader VMs' public addresses, for SSH."
  value       = aws_instance.loader[*].public_ip
}

output "db_port" {
  description = "The database's client port."
  value       = var.db_port
}
