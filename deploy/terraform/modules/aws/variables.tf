variable "name" {
  description = "Prefix of every resource's name: the experiment target."
  type        = string
}

variable "region" {
  description = "Region of every VM."
  type        = string
  default     = "us-east-1"
}

variable "availability_zone" {
  description = "Availability zone of every VM (loaders in the same zone as the databases)."
  type        = string
  default     = "us-east-1a"
}

variable "ami" {
  description = "Debian 12 or Ubuntu AMI of the region."
  type        = string
}

variable "db_machine_type" {
  description = "Instance type of the database VMs; i3 and i4i carry local NVMe instance storage."
  type        = string
  default     = "i4i.xlarge"
}

variable "db_count" {
  description = "Database VMs: 1, or the nodes of a cluster."
  type        = number
  default     = 1
}

variable "db_image" {
  description = "Container image of the database, run by Docker on each VM."
  type        = string
}

variable "db_port" {
  description = "The port the database serves clients on."
  type        = number
}

variable "db_docker_flags" {
  description = "Flags of docker run before the image, such as -e POSTGRES_DB=ycsb; see db_args for the shell variables they may use."
  type        = string
  default     = ""
}

variable "db_args" {
  description = "Arguments after the image in docker run (the container's command). Like db_docker_flags, it may use the boot script's shell variables: $SELF (this VM's internal address), $SEED (the first database VM's), $SEEDS (every database VM's, comma-separated) and $NODE_INDEX (0 for the first)."
  type        = string
  default     = ""
}

variable "db_init" {
  description = "A command run once inside the first database VM's container after it starts, retried until it succeeds, such as a cluster's init (empty: none)."
  type        = string
  default     = ""
}

variable "db_data_dir" {
  description = "Where the database keeps its data inside the container; the local NVMe SSD is mounted there."
  type        = string
}

variable "loader_count" {
  description = "Loader VMs that run dbarena."
  type        = number
  default     = 1
}

variable "loader_machine_type" {
  description = "Instance type of the loader VMs."
  type        = string
  default     = "c5.2xlarge"
}

variable "operator_cidr" {
  description = "The operator's address range: the only outside source admitted, for SSH and node_exporter. Never 0.0.0.0/0."
  type        = string
  validation {
    condition     = var.operator_cidr != "0.0.0.0/0" && can(cidrhost(var.operator_cidr, 0))
    error_message = "operator_cidr must be your address range such as 203.0.113.7/32, never 0.0.0.0/0."
  }
}

variable "ssh_user" {
  description = "User the operator's SSH key is installed for."
  type        = string
  default     = "admin"
}

variable "ssh_public_key" {
  description = "The operator's SSH public key (its text)."
  type        = string
}

variable "db_ip_offset" {
  description = "Where the database VMs' fixed private addresses start in the zone's default subnet (a /20): host number db_ip_offset + i. Null derives it from name, so that two experiments in one zone rarely collide; set it when apply reports InvalidIPAddress.InUse."
  type        = number
  default     = null
}
