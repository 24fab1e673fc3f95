package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// reserveFile holds room for the manifests a full disk would refuse: a
// run whose disk fills must still record that it failed and why, and the
// manifest is replaced by writing a new file. It is given up at the
// first manifest that finds no room, and removed at Close.
const (
	reserveFile  = ".dbarena-reserve"
	reserveBytes = 256 << 10
)

// Writer appends to a results directory as a run goes. Its methods are
// safe for concurrent use: the runner's observer and the system-metrics
// collector write from their own goroutines.
type Writer struct {
	dir    string
	mu     sync.Mutex
	trials *csvFile[Trial]
	points *csvFile[Point]
	sys    *csvFile[Sys]
	db     *csvFile[DBMetric]
	// redact, when set, hides secrets in free text (see Redact).
	redact func(string) string
}

// csvFile is one appended CSV file, flushed after every append so that a
// killed run keeps every complete row.
type csvFile[T any] struct {
	path string
	f    *os.File
	cols []column[T]
	// buf and w encode the rows of one append before they are written
	// at once; size is the file's length up to its last whole row.
	buf  bytes.Buffer
	w    *csv.Writer
	size int64
}

func createCSV[T any](path string, cols []column[T]) (*csvFile[T], error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	c := &csvFile[T]{path: path, f: f, cols: cols}
	c.w = csv.NewWriter(&c.buf)
	if err := c.write(func() error { return c.w.Write(header(cols)) }); err != nil {
		f.Close()
		return nil, err
	}
	return c, nil
}

func (c *csvFile[T]) append(rows []T) error {
	return c.write(func() error {
		for i := range rows {
			if err := c.w.Write(formatRow(c.cols, &rows[i])); err != nil {
				return err
			}
		}
		return nil
	})
}

// write encodes rows with encode and writes them in one call. A write
// the disk cut short (it filled) is taken back to the last whole row:
// a reader never meets half a row, and the rows of the failed append
// are the ones missing, as its error says.
func (c *csvFile[T]) write(encode func() error) error {
	c.buf.Reset()
	err := encode()
	c.w.Flush()
	if err == nil {
		err = c.w.Error()
	}
	if err != nil {
		return fmt.Errorf("results: write %s: %w", c.path, err)
	}
	n, err := c.f.Write(c.buf.Bytes())
	if err == nil {
		c.size += int64(n)
		return nil
	}
	if n > 0 {
		if terr := c.f.Truncate(c.size); terr != nil {
			return fmt.Errorf("results: write %s: %w (and its half-written row stays: %v)", c.path, err, terr)
		}
		if _, serr := c.f.Seek(c.size, io.SeekStart); serr != nil {
			return fmt.Errorf("results: write %s: %w (%v)", c.path, err, serr)
		}
	}
	return fmt.Errorf("results: write %s: %w; its rows up to the last whole one are kept", c.path, err)
}

func (c *csvFile[T]) close() error {
	if c == nil {
		return nil
	}
	return c.f.Close() // every append wrote its rows whole
}

// CheckNew says whether dir may become a results directory: one that
// does not exist yet, or an empty one. A directory that holds a run's
// manifest already holds results; one that holds anything else holds
// someone's files, among which a run would write its own (a user's
// report.html and figures/ were overwritten).
func CheckNew(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		if fi, serr := os.Stat(dir); serr == nil && !fi.IsDir() {
			return fmt.Errorf("%s is a file, not a directory: name a new directory", dir)
		}
		return err
	case len(entries) == 0:
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err == nil {
		return fmt.Errorf("%s already holds a results directory; choose another", dir)
	}
	var names []string
	for _, e := range entries[:min(len(entries), 4)] {
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		names = append(names, name)
	}
	if len(entries) > 4 {
		names = append(names, fmt.Sprintf("and %d more", len(entries)-4))
	}
	return fmt.Errorf("%s is not empty and holds no dbarena results (%s): a run would write its files among them; name a new or empty directory", dir, strings.Join(names, ", "))
}

// Create makes dir (which must not exist yet or be empty: CheckNew) and
// opens its CSV files with their headers.
func Create(dir string) (*Writer, error) {
	if err := CheckNew(dir); err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	_, statErr := os.Stat(dir)
	existed := statErr == nil
	if err := os.MkdirAll(filepath.Join(dir, HdrDir), 0o755); err != nil {
		return nil, fmt.Errorf("results: create %s: %w", dir, err)
	}
	w, err := create(dir)
	if err != nil {
		// Nothing ran: leave the directory as it was found (new, or
		// empty: CheckNew).
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		}
		if !existed {
			_ = os.Remove(dir)
		}
		return nil, err
	}
	return w, nil
}

// create opens dir's CSV files and its reserve.
func create(dir string) (*Writer, error) {
	w := &Writer{dir: dir}
	var err error
	if w.trials, err = createCSV(filepath.Join(dir, TrialsFile), trialColumns()); err != nil {
		return nil, err
	}
	if w.points, err = createCSV(filepath.Join(dir, TimeseriesFile), pointColumns()); err != nil {
		w.Close()
		return nil, err
	}
	if w.sys, err = createCSV(filepath.Join(dir, SysmetricsFile), sysColumns()); err != nil {
		w.Close()
		return nil, err
	}
	if w.db, err = createCSV(filepath.Join(dir, DBMetricsFile), dbMetricColumns()); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.reserve(); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// reserve writes the reserve file. A disk without room for it is
// refused before anything runs: a run there could not even record how
// it ended (with 60 kB free its manifest stayed "running" and its CSV
// files were cut at 4,096 bytes).
func (w *Writer) reserve() error {
	path := filepath.Join(w.dir, reserveFile)
	// Written, not truncated to size: a sparse file holds no blocks.
	if err := os.WriteFile(path, make([]byte, reserveBytes), 0o600); err != nil {
		_ = os.Remove(path)
		return fmt.Errorf("results: %s: its disk has no room for the %d KiB a run keeps to record how it ended (%w): free some space, or choose another directory",
			w.dir, reserveBytes>>10, err)
	}
	return nil
}

// Dir returns the directory written.
func (w *Writer) Dir() string { return w.dir }

// HdrPath is where the HdrHistogram log of a trial goes.
func (w *Writer) HdrPath(trialID string) string {
	return filepath.Join(w.dir, HdrDir, trialID+".hlog")
}

// LoaderLogDir is where the loaders of a trial stream their interval
// logs while it runs (see [LoaderLogs]).
func (w *Writer) LoaderLogDir(trialID string) string {
	return filepath.Join(w.dir, HdrDir, trialID+LoaderLogs)
}

// Redact passes every free-text field the writer writes through f from
// now on: the manifest's error, warnings and target properties, the
// trials' flags, reference command and note. Those are where an error
// message can land, and an error message can quote a credential; numbers
// and identifiers are written as they are, so the files still read back.
// The report reads these files, so it shows what they hold.
func (w *Writer) Redact(f func(string) string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.redact = f
}

// AddTrial appends one row to trials.csv.
func (w *Writer) AddTrial(t Trial) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if f := w.redact; f != nil {
		t.Flags = redactAll(f, t.Flags)
		t.Reference.Command, t.Reference.Note = f(t.Reference.Command), f(t.Reference.Note)
		t.StatusReason = f(t.StatusReason)
	}
	return w.trials.append([]Trial{t})
}

// redactAll returns a redacted copy of ss (warnings, flags).
func redactAll[S ~string](f func(string) string, ss []S) []S {
	if ss == nil {
		return nil
	}
	out := make([]S, len(ss))
	for i, s := range ss {
		out[i] = S(f(string(s)))
	}
	return out
}

// AddPoints appends rows to timeseries.csv.
func (w *Writer) AddPoints(ps []Point) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.points.append(ps)
}

// AddSys appends rows to sysmetrics.csv.
func (w *Writer) AddSys(ss []Sys) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sys.append(ss)
}

// AddDBMetrics appends rows to dbmetrics.csv.
func (w *Writer) AddDBMetrics(ms []DBMetric) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.db.append(ms)
}

// WriteManifest replaces manifest.json atomically: a reader, or a run
// killed mid-write, sees the old manifest or the new one, never half.
func (w *Writer) WriteManifest(m *Manifest) error {
	w.mu.Lock()
	f := w.redact
	w.mu.Unlock()
	if f != nil {
		c := *m
		c.Error, c.Warnings = f(c.Error), redactAll(f, c.Warnings)
		c.Targets = append([]TargetInfo(nil), c.Targets...)
		for i := range c.Targets {
			props := make(map[string]string, len(c.Targets[i].Properties))
			for k, v := range c.Targets[i].Properties {
				props[k] = f(v)
			}
			c.Targets[i].Properties = props
		}
		m = &c
	}
	if m.Format != FormatVersion {
		c := *m
		c.Format = FormatVersion
		m = &c
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("results: encode manifest: %w", err)
	}
	path := filepath.Join(w.dir, ManifestFile)
	err = WriteFileAtomic(path, append(b, '\n'), 0o644)
	if errors.Is(err, syscall.ENOSPC) && os.Remove(filepath.Join(w.dir, reserveFile)) == nil {
		// The disk is full: the reserve makes room for this manifest
		// and the last.
		err = WriteFileAtomic(path, append(b, '\n'), 0o644)
	}
	return err
}

// Close flushes and closes the CSV files, and removes the reserve.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	rerr := os.Remove(filepath.Join(w.dir, reserveFile))
	if errors.Is(rerr, os.ErrNotExist) {
		rerr = nil
	}
	return errors.Join(w.trials.close(), w.points.close(), w.sys.close(), w.db.close(), rerr)
}

// WriteFileAtomic writes data to a temporary file next to path, syncs it
// and renames it over path.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := errors.Join(tmp.Chmod(perm), tmp.Sync(), tmp.Close()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
