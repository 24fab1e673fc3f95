package sysmetrics

import "strings"

// countedDisk reports whether a block device's traffic counts as the
// host's storage traffic: a whole disk, not a partition (counted again in
// its disk), a loop device (a file on another disk), a RAM disk or zram
// (memory), an optical or floppy drive, or a device-mapper or
// software-RAID volume (LVM, dm-crypt, md: their disks count the traffic
// again). Names are all node_exporter gives; locally /sys/block settles
// partitions too (machine.wholeDisk).
func countedDisk(name string) bool {
	for _, p := range [...]string{"loop", "ram", "zram", "sr", "fd", "dm-", "md"} {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	return !partition(name)
}

// partition reports whether name follows a partition naming scheme:
// sda1, vdb2, xvda1, hdc3 (a disk name and a number), nvme0n1p1 and
// mmcblk0p2 (a disk name ending in a digit, then "p" and a number).
func partition(name string) bool {
	base := strings.TrimRight(name, "0123456789")
	if base == name || base == "" {
		return false
	}
	if stem, ok := strings.CutSuffix(base, "p"); ok && stem != "" && isDigit(stem[len(stem)-1]) {
		return strings.HasPrefix(stem, "nvme") || strings.HasPrefix(stem, "mmcblk")
	}
	for _, p := range [...]string{"sd", "vd", "xvd", "hd"} {
		if letters, ok := strings.CutPrefix(base, p); ok && letters != "" && strings.Trim(letters, "abcdefghijklmnopqrstuvwxyz") == "" {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
