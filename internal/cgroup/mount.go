package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// mount is one cgroup hierarchy as /proc/self/mountinfo shows it.
type mount struct {
	// root is the hierarchy path mounted at point ("/" unless a container
	// runtime bind-mounted a subtree).
	root  string
	point string
	// v2 marks the unified hierarchy; options then holds nothing useful.
	v2 bool
	// options are the super-block options; on v1 they name the
	// controllers ("rw,cpu,cpuacct").
	options []string
}

// has reports whether a v1 hierarchy carries controller c.
func (m mount) has(c string) bool { return !m.v2 && slices.Contains(m.options, c) }

// dir is the directory of hierarchy path p under this mount. A path outside
// the mounted subtree is taken as relative to it: inside a cgroup namespace
// /proc/PID/cgroup already shows paths from the namespace's root.
func (m mount) dir(p string) string {
	rel := p
	if m.root != "/" {
		switch {
		case p == m.root:
			rel = "/"
		case strings.HasPrefix(p, m.root+"/"):
			rel = p[len(m.root):]
		}
	}
	// Cleaning an absolute path stops ".." at "/", so the result stays
	// under the mount point.
	return filepath.Join(m.point, filepath.Clean("/"+rel))
}

// hierarchyPath is the inverse of dir: the path /proc/PID/cgroup shows for
// directory d under this mount.
func (m mount) hierarchyPath(d string) string {
	rel := strings.TrimPrefix(d, m.point)
	return filepath.Join("/", m.root, rel)
}

// parseMountinfo returns the cgroup mounts in a mountinfo file, first
// mount of each hierarchy first.
func parseMountinfo(data string) ([]mount, error) {
	var mounts []mount
	for line := range strings.SplitSeq(data, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f := strings.Fields(pre)
		g := strings.Fields(post)
		if len(f) < 5 || len(g) < 3 || (g[0] != "cgroup" && g[0] != "cgroup2") {
			continue
		}
		root, err := unescapeMount(f[3])
		if err != nil {
			return nil, fmt.Errorf("mountinfo line %q: %w", line, err)
		}
		point, err := unescapeMount(f[4])
		if err != nil {
			return nil, fmt.Errorf("mountinfo line %q: %w", line, err)
		}
		mounts = append(mounts, mount{root: root, point: point, v2: g[0] == "cgroup2", options: strings.Split(g[2], ",")})
	}
	return mounts, nil
}

// unescapeMount undoes the octal escapes (\040 for a space) the kernel
// writes into mountinfo paths.
func unescapeMount(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			n, err := strconv.ParseUint(s[i+1:i+4], 8, 8)
			if err != nil {
				return "", fmt.Errorf("bad escape in %q: %w", s, err)
			}
			b.WriteByte(byte(n))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String(), nil
}

// membership is a process's place in each hierarchy (/proc/PID/cgroup).
type membership struct {
	// v1 maps each controller ("cpu", "memory", "name=systemd") to its path.
	v1 map[string]string
	// v2 is the unified hierarchy path; hasV2 tells "/" from absent.
	v2    string
	hasV2 bool
}

// parseMembership reads /proc/PID/cgroup lines "ID:CONTROLLERS:PATH".
func parseMembership(data string) membership {
	m := membership{v1: map[string]string{}}
	for line := range strings.SplitSeq(data, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			m.v2, m.hasV2 = parts[2], true
			continue
		}
		for c := range strings.SplitSeq(parts[1], ",") {
			m.v1[c] = parts[2]
		}
	}
	return m
}

// readMembership reads and parses a /proc/PID/cgroup file.
func readMembership(path string) (membership, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return membership{}, fmt.Errorf("read cgroup membership: %w", err)
	}
	return parseMembership(string(b)), nil
}
