package sysmetrics

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ListenerPID returns the process on this machine that listens on TCP
// port, so that a database dbarena did not start (an existing endpoint)
// can be sampled as the database rather than counted among other
// processes. It reads the listening sockets from /proc/net/tcp and tcp6
// and finds the process holding one among every process's descriptors;
// where a server's children inherited the socket, the eldest holder
// (whose parent holds none) is the root of the tree. A process of
// another user whose descriptors this one may not read is not found.
func ListenerPID(port int) (int, error) {
	return procFS{root: "/proc"}.listenerPID(port)
}

// tcpListen is the state of a listening socket in /proc/net/tcp.
const tcpListen = "0A"

// listenerPID is ListenerPID on the proc file system p.
func (p procFS) listenerPID(port int) (int, error) {
	if port <= 0 || port > 65535 {
		return 0, fmt.Errorf("port %d: want 1-65535", port)
	}
	inodes := map[string]bool{}
	for _, name := range []string{"tcp", "tcp6"} {
		if err := listeningInodes(filepath.Join(p.root, "net", name), port, inodes); err != nil {
			return 0, err
		}
	}
	if len(inodes) == 0 {
		return 0, fmt.Errorf("no socket on this machine listens on port %d", port)
	}
	stats, err := p.stats()
	if err != nil {
		return 0, err
	}
	holders := map[int]bool{}
	for pid := range stats {
		fds, err := os.ReadDir(filepath.Join(p.root, strconv.Itoa(pid), "fd"))
		if err != nil {
			continue // gone, or another user's
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(p.root, strconv.Itoa(pid), "fd", fd.Name()))
			if err == nil && strings.HasPrefix(link, "socket:[") && inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] {
				holders[pid] = true
				break
			}
		}
	}
	root := 0
	for pid := range holders {
		if !holders[stats[pid].ppid] && (root == 0 || pid < root) {
			root = pid
		}
	}
	if root == 0 {
		return 0, fmt.Errorf("a socket listens on port %d, but no process whose descriptors this one may read holds it (another user's)", port)
	}
	return root, nil
}

// listeningInodes adds to inodes those of the sockets in a
// /proc/net/tcp-format file that listen on port. A missing file (no
// IPv6) holds none.
func listeningInodes(path string, port int, inodes map[string]bool) error {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		fs := strings.Fields(sc.Text())
		if len(fs) < 10 || fs[3] != tcpListen {
			continue
		}
		_, hexPort, ok := strings.Cut(fs[1], ":")
		if !ok {
			continue
		}
		if n, err := strconv.ParseUint(hexPort, 16, 16); err == nil && int(n) == port && fs[9] != "0" {
			inodes[fs[9]] = true
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
