package spec

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// parseDuration reads Go syntax ("90s", "1m30s") or, as YCSB's
// maxexecutiontime does, a plain number of seconds. Negative durations
// are refused.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs < 0 || math.IsNaN(secs) || secs > math.MaxInt64/float64(time.Second) {
			return 0, errors.New("out of range")
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	if d < 0 {
		return 0, errors.New("negative")
	}
	return d, nil
}

// ParseShare reads a share written as a percentage ("30%") or a
// fraction ("0.3"); finite, and 0 or more.
func ParseShare(s string) (float64, error) {
	s = strings.TrimSpace(s)
	div := 1.0
	if t, ok := strings.CutSuffix(s, "%"); ok {
		s, div = strings.TrimSpace(t), 100
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a share such as 30%% or 0.3", s)
	}
	return v / div, nil
}

// parseRate reads an operations-per-second rate >= 0.
func parseRate(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, err
	}
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errors.New("out of range")
	}
	return v, nil
}

// memoryUnits are the accepted size suffixes, longest first so that "KiB"
// is not read as "B" after "Ki". Binary and decimal units both exist
// because cloud instance sizes are quoted in GiB and disks in GB.
func memoryUnits() []struct {
	suffix string
	bytes  float64
} {
	return []struct {
		suffix string
		bytes  float64
	}{
		{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
		{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
		{"b", 1},
	}
}

// parseMemory reads a size such as "2GiB", "512 MiB", "1.5GB" or a plain
// number of bytes. Units are case-insensitive; "2G" is refused because it
// is ambiguous between GB and GiB.
func parseMemory(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range memoryUnits() {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(num), u.bytes
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("want a size such as 2GiB or 512MiB (units B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)")
	}
	b := v * mult
	if !(b >= MinMemoryBytes) || b > math.MaxInt64/2 {
		return 0, fmt.Errorf("want a size of at least 16MiB: no database starts in less (Redis idles at about 8 MiB, PostgreSQL at 65 MiB), and a limit under that kills it in the run rather than here")
	}
	return int64(math.Round(b)), nil
}

// MinMemoryBytes is the least memory limit a deployment may be given.
const MinMemoryBytes = 16 << 20
