package local

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cmdSpec is a server command and how it stops.
type cmdSpec struct {
	cmd        *exec.Cmd
	logPath    string
	dataDir    string
	stopSignal syscall.Signal
	grace      time.Duration
}

// hostName names node i (0-based) of n.
func (d *deployment) hostName(i int) string {
	if d.req.Nodes <= 1 {
		return d.req.Name
	}
	return fmt.Sprintf("%s-%d", d.req.Name, i+1)
}

// versionOf runs "program --version" and returns its first line.
func versionOf(program string, args ...string) string {
	if len(args) == 0 {
		args = []string{"--version"}
	}
	out, err := exec.Command(program, args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
}

// pgBin returns the bin directory of the newest installed PostgreSQL.
func pgBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return pgMajor(dirs[i]) < pgMajor(dirs[j]) })
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i], nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("PostgreSQL not found (no initdb under /usr/lib/postgresql/*/bin or in PATH): apt-get install postgresql")
}

func pgMajor(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// unprivileged returns the credential a server that refuses root runs
// under: the named system user, created when missing. As non-root it
// returns nil: the server runs as the caller.
func unprivileged(name string, dirs ...string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		out, addErr := exec.Command("useradd", "--system", "--user-group", "--no-create-home", name).CombinedOutput()
		if addErr != nil {
			return nil, fmt.Errorf("create system user %s to run the server (it refuses root): %v: %s", name, addErr, out)
		}
		if u, err = user.Lookup(name); err != nil {
			return nil, fmt.Errorf("user %s: %w", name, err)
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	for _, dir := range dirs {
		if err := searchable(filepath.Dir(dir)); err != nil {
			return nil, fmt.Errorf("the server runs as user %s, which cannot reach its data: %w (choose a --work-dir under /tmp, or chmod o+x that directory)", name, err)
		}
		err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, uid, gid)
		})
		if err != nil {
			return nil, fmt.Errorf("give %s to user %s: %w", dir, name, err)
		}
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
}

// runAs runs a setup command (initdb, install-db) with its output kept for
// the error.
func runAs(cred *syscall.Credential, dir string, program string, args ...string) error {
	cmd := exec.Command(program, args...)
	cmd.Dir = dir
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", filepath.Base(program), strings.Join(args, " "), err, lastLines(string(out), 15))
	}
	return nil
}

// launchPostgres initialises a cluster and runs the postmaster in the
// foreground (not pg_ctl, which daemonizes: a daemon outlives a killed
// parent and lingers as a zombie).
func launchPostgres(ctx context.Context, d *deployment) error {
	bin, err := pgBin()
	if err != nil {
		return err
	}
	dir, err := d.nodeDir("postgres")
	if err != nil {
		return err
	}
	cred, err := unprivileged("postgres", dir)
	if err != nil {
		return err
	}
	data := filepath.Join(dir, "data")
	if err := runAs(cred, dir, filepath.Join(bin, "initdb"), "-D", data, "-N", "-U", "postgres",
		"--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"); err != nil {
		return err
	}
	port, err := d.port("127.0.0.1")
	if err != nil {
		return err
	}
	args := []string{"-D", data, "-p", strconv.Itoa(port), "-k", dir, "-c", "listen_addresses=127.0.0.1",
		// Client sweeps go to hundreds of workers, each with its own
		// connection; the default 100 would fail them.
		"-c", "max_connections=600"}
	if mem := d.req.MemoryBytes; mem > 0 {
		// PostgreSQL's guidance: a quarter of the memory for its own cache.
		args = append(args, "-c", fmt.Sprintf("shared_buffers=%dkB", mem/4/1024))
	}
	for k, v := range d.req.Options {
		args = append(args, "-c", k+"="+v)
	}
	cmd := exec.Command(filepath.Join(bin, "postgres"), args...)
	cmd.Dir = dir
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	return d.serveOne(ctx, &cmdSpec{cmd: cmd, logPath: filepath.Join(dir, "log"), dataDir: data,
		stopSignal: syscall.SIGINT, grace: time.Minute}, port, "ready to accept connections", func() string { return versionOf(filepath.Join(bin, "postgres")) })
}

// all succeeds when every check does, in order.
func all(checks ...func() error) func() error {
	return func() error {
		for _, c := range checks {
			if err := c(); err != nil {
				return err
			}
		}
		return nil
	}
}

// searchable checks that every directory from dir up to the root lets
// other users through (o+x), as a server that dropped root needs.
func searchable(dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("directory %s is not searchable by other users (mode %v)", d, fi.Mode().Perm())
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}
