variable "name" {
  description = "Prefix of every resource's name: the experiment target."
  type        = string
}

variable "db_count" {
  description = "Database containers (\"VMs\"): one, or a cluster's nodes, named db-1, db-2... on the network; db_env or db_command seeds them with db-1."
  type        = number
  default     = 1
  validation {
    condition     = var.db_count >= 1
    error_message = "db_count must be at least 1."
  }
}

variable "db_image" {
  description = "Container image of the database, on the engine already (no registry is asked)."
  type        = string
}

variable "db_port" {
  description = "The port the database serves clients on."
  type        = number
}

variable "db_command" {
  description = "The database container's command (its arguments after the image); empty keeps the image's."
  type        = list(string)
  default     = []
}

variable "db_env" {
  description = "The database container's environment, NAME=VALUE each."
  type        = list(string)
  default     = []
}

variable "db_data_dir" {
  description = "Where the database keeps its data inside the container: a volume of its own, removed by destroy."
  type        = string
}

variable "loader_count" {
  description = "Loader containers (\"VMs\") that run dbarena, reached over ssh."
  type        = number
  default     = 1
}

variable "vm_image" {
  description = "The image that stands in for a VM: node_exporter on 9100 and sshd on 22 (scripts/images/build's dbarena.local/vm:12)."
  type        = string
  default     = "dbarena.local/vm:12"
}

variable "ssh_user" {
  description = "User the operator's SSH key is installed for on the loaders."
  type        = string
  default     = "dbarena"
}

variable "ssh_public_key" {
  description = "The operator's SSH public key (its text)."
  type        = string
}
