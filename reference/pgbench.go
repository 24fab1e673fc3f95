package reference

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/internal/redact"
	"github.com/dbarena/dbarena/workload"
)

// pgbench runs PostgreSQL's pgbench with a custom script: the driver's own
// point-read statement, prepared, with the key built the way YCSB builds
// it. pgbench's hash_fnv1a(k, 0) is the same FNV-1a over the eight bytes
// of k as YCSB's fnvhash64, so hashed keys need no lookup table.
type pgbench struct{}

func (pgbench) Name() string { return "pgbench" }

func (p pgbench) Run(ctx context.Context, req Request) (*Result, error) {
	cfg, err := req.Endpoint(req.Props, req.Threads)
	if err != nil {
		return nil, err
	}
	if cfg.Dialect != "postgres" || cfg.ReadAllSQL == nil {
		return nil, notApplicable("pgbench is matched to PostgreSQL only, not the %s dialect", cfg.Dialect)
	}
	bin, err := find("DBARENA_PGBENCH", "pgbench", "/usr/lib/postgresql/*/bin/pgbench", "/usr/pgsql-*/bin/pgbench")
	if err != nil {
		return nil, err
	}
	if !req.Workload.ReadAllFields {
		return nil, notApplicable("readallfields=false: pgbench is matched on reads of whole records")
	}
	query := strings.Replace(cfg.ReadAllSQL(req.Workload.Table), "$1", keyExpr(req.Workload), 1)
	pick := keyPick(req.Workload)

	// First make sure the keys pgbench builds are the rows dbarena
	// loaded: a reference that reads nothing would be fast and
	// meaningless.
	check := pick + "SELECT count(*) AS found FROM (" + query + ") AS r \\gset\n\\if :found = 0\nSELECT 'pgbench reference: key not found' :: int;\n\\endif\n"
	checkFile, err := writeScript(req.WorkDir, "pgbench-check.sql", check)
	if err != nil {
		return nil, err
	}
	// The password goes by environment: on pgbench's command line any
	// local user could read it in ps for as long as the reference runs.
	conn, password := splitPGPassword(cfg.URL)
	runPgbench := func(args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, bin, append(args, conn)...)
		if password != "" {
			cmd.Env = append(os.Environ(), "PGPASSWORD="+password)
		}
		return cmd
	}
	if _, err := output(runPgbench("-n", "-t", "200", "-f", checkFile)); err != nil {
		return nil, fmt.Errorf("pgbench's keys do not match the loaded rows (check of 200 random keys): %w", err)
	}

	script, err := writeScript(req.WorkDir, "pgbench-read.sql", pick+query+";\n")
	if err != nil {
		return nil, err
	}
	jobs := min(req.Threads, runtime.NumCPU())
	secs := max(1, int(req.Duration.Seconds()+0.5))
	args := []string{"-n", "-M", "prepared", "-c", strconv.Itoa(req.Threads), "-j", strconv.Itoa(jobs),
		"-T", strconv.Itoa(secs), "-f", script}
	out, err := output(runPgbench(args...))
	if err != nil {
		return nil, err
	}
	res, err := parsePgbench(out)
	if err != nil {
		return nil, err
	}
	res.Tool = "pgbench"
	res.Command = strings.Join(append([]string{"pgbench"}, append(args, redact.URL(conn))...), " ")
	res.Notes = append(res.Notes, distributionNote(req.Workload)...)
	return res, nil
}

// pgKeywordPassword is a password=... pair of a keyword/value
// connection string, quoted or not.
var pgKeywordPassword = regexp.MustCompile(`(^|\s)password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)`)

// splitPGPassword returns the connection string without its password,
// and the password (from the URL's user info or its password parameter,
// or a keyword/value string's password=...; "" when it has none).
func splitPGPassword(dsn string) (conn, password string) {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		if u.User != nil {
			password, _ = u.User.Password()
			u.User = url.User(u.User.Username())
		}
		if q := u.Query(); q.Has("password") {
			password = q.Get("password")
			q.Del("password")
			u.RawQuery = q.Encode()
		}
		return u.String(), password
	}
	m := pgKeywordPassword.FindStringSubmatchIndex(dsn)
	if m == nil {
		return dsn, ""
	}
	password = dsn[m[4]:m[5]]
	if strings.HasPrefix(password, "'") {
		password = strings.NewReplacer(`\'`, "'", `\\`, `\`).Replace(password[1 : len(password)-1])
	}
	return strings.TrimSpace(dsn[:m[0]] + dsn[m[1]:]), password
}

// keyPick is the script's lines that draw a record number uniformly from
// the loaded range into :k, hashed into :h when the keys are.
func keyPick(c workload.Config) string {
	first := c.InsertStart
	last := first + c.EffectiveInsertCount() - 1
	s := fmt.Sprintf("\\set k random(%d, %d)\n", first, last)
	if c.InsertOrder == workload.InsertHashed {
		s += "\\set k abs(hash_fnv1a(:k, 0))\n"
	}
	return s
}

// keyExpr is the SQL expression of the key: "user", then :k in decimal,
// zero-padded to zeropadding digits but never cut (lpad would cut).
func keyExpr(c workload.Config) string {
	if c.ZeroPadding <= 1 {
		return "'user' || :k"
	}
	return fmt.Sprintf("'user' || CASE WHEN length(:k::text) >= %d THEN :k::text ELSE lpad(:k::text, %d, '0') END", c.ZeroPadding, c.ZeroPadding)
}

func writeScript(dir, name, text string) (string, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return "", fmt.Errorf("write %s script: %w", name, err)
	}
	return path, nil
}

var (
	pgbenchTPS     = regexp.MustCompile(`(?m)^tps = ([0-9.]+) \(without initial connection time\)`)
	pgbenchLatency = regexp.MustCompile(`(?m)^latency average = ([0-9.]+) ms`)
	pgbenchFailed  = regexp.MustCompile(`(?m)^number of failed transactions: ([0-9]+)`)
)

// parsePgbench reads pgbench's summary.
func parsePgbench(out []byte) (*Result, error) {
	m := pgbenchTPS.FindSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("pgbench printed no \"tps = ... (without initial connection time)\" line: %.300s", out)
	}
	res := &Result{}
	res.Throughput, _ = strconv.ParseFloat(string(m[1]), 64) // the pattern admits only a number
	if m := pgbenchLatency.FindSubmatch(out); m != nil {
		ms, _ := strconv.ParseFloat(string(m[1]), 64)
		res.MeanLatency = ms * 1000
	}
	if m := pgbenchFailed.FindSubmatch(out); m != nil && string(m[1]) != "0" {
		res.Notes = append(res.Notes, string(m[1])+" pgbench transactions failed")
	}
	return res, nil
}
