// Package bounds holds the bounds dbarena puts on what users give it, and
// the capped file reading that enforces the size bounds. Each bound is far
// above any real use and far below what would exhaust a loader's memory:
// bad input then fails with an error that names the file, property or flag
// and the limit, instead of crashing the process or hanging it.
package bounds

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxFileBytes bounds an input file read whole: property files, experiment
// files, price catalogues, USL CSVs. Real ones are a few KiB (YCSB's
// workload files are under 2 KiB, the largest example experiment 6 KiB), so
// 64 MiB is thousands of times that, and a loader VM with 1 GiB of memory
// still reads it; /dev/zero or a wrong file fails after 64 MiB instead of
// filling the memory.
const MaxFileBytes = 64 << 20

// MaxSecretBytes bounds the content of a ${file:PATH} reference: a
// password, a token or a PEM certificate chain, all well under 1 MiB.
const MaxSecretBytes = 1 << 20

// MaxThreads bounds the workers of one process. Each worker holds a
// driver session (a connection) and its own histograms: about 8 KiB with
// the memory driver, measured at 10,000 workers (134 MB RSS), so 100,000
// workers need about 1 GiB before any connection buffer. A database that
// needs more concurrency than that from one client is driven from several
// loaders (run.loaders). 10,000,000 workers ran out of memory.
const MaxThreads = 100_000

// MaxBatchSize bounds the records of one batched insert (YCSB's
// batchsize). The runner allocates the batch up front; drivers' own
// limits are far lower (DynamoDB 25 items, PostgreSQL 65,535 bind
// parameters per statement).
const MaxBatchSize = 100_000

// MinRate and MaxRate bound a throughput a user asks a size for (`dbarena
// size --throughput`), in operations per second. The largest published
// clusters serve tens of millions; a billion is far past them, and a
// month of it (2.6e15 operations, 2.9e16 with 1000% headroom) still
// counts exactly in the int64s and float64s the answer's arithmetic
// uses. Under a thousandth of an operation a second (one every 17
// minutes) a cost per million operations prices centuries of a machine.
const (
	MinRate = 1e-3
	MaxRate = 1e9
)

// MaxCores bounds the cores of a size asked for or priced: the largest
// cloud machines have under 1,000 vCPUs, and 65,536 covers a cluster of
// them.
const MaxCores = 65_536

// MaxHourlyUSD bounds a price in a catalogue, per machine-hour: the
// dearest cloud machines cost about $100 an hour, so a million is a
// typing mistake (a monthly price is bounded at MaxHourlyUSD times the
// hours of a month).
const MaxHourlyUSD = 1e6

// TooLargeError is an input past its size limit.
type TooLargeError struct {
	// Name is the file (or stream) read.
	Name string
	// Limit is the number of bytes allowed.
	Limit int64
}

// Error names the file and the limit.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than the %s limit for input files; is it the right file?", e.Name, FormatBytes(e.Limit))
}

// ReadFile reads the file at path whole, or fails with a *TooLargeError
// once it holds more than limit bytes. It reads devices and pipes as well
// as regular files (/dev/stdin, a shell's <(...)), stopping at the limit,
// so /dev/zero costs limit bytes of memory, not all of it.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
		return nil, &TooLargeError{Name: path, Limit: limit}
	}
	return ReadAll(f, path, limit)
}

// OpenRegular opens path for reading only if it is a regular file (a
// link to one is followed): a FIFO in its place blocks the open until a
// writer comes, forever for a report, and a device never ends. A
// missing file's error wraps os.ErrNotExist, as os.Open's does.
func OpenRegular(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s); want the file dbarena wrote", path, fi.Mode().Type())
	}
	return os.Open(path)
}

// ReadAll reads r to its end, or fails with a *TooLargeError naming name
// once more than limit bytes were read.
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(NewReader(r, name, limit))
	if err != nil {
		var tl *TooLargeError
		if errors.As(err, &tl) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

// NewReader returns a reader of r that fails with a *TooLargeError naming
// name once more than limit bytes were read: for parsers that stream a
// file (CSV, YAML, line scanners) rather than read it whole.
func NewReader(r io.Reader, name string, limit int64) io.Reader {
	return &reader{r: r, name: name, left: limit, limit: limit}
}

type reader struct {
	r     io.Reader
	name  string
	left  int64 // bytes still allowed
	limit int64
}

func (r *reader) Read(p []byte) (int, error) {
	if r.left < 0 {
		return 0, &TooLargeError{Name: r.name, Limit: r.limit}
	}
	// Read one byte past the limit, so that a stream of exactly limit
	// bytes ends with io.EOF and a longer one fails.
	if int64(len(p)) > r.left+1 {
		p = p[:r.left+1]
	}
	n, err := r.r.Read(p)
	r.left -= int64(n)
	if r.left < 0 {
		return n - 1, &TooLargeError{Name: r.name, Limit: r.limit}
	}
	return n, err
}

// FormatBytes prints a size in the largest binary unit that divides it,
// as limits are written: "64 MiB", "1 MiB", "512 B".
func FormatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for i < len(units)-1 && n >= 1024 && n%1024 == 0 {
		n /= 1024
		i++
	}
	return fmt.Sprintf("%d %s", n, units[i])
}
