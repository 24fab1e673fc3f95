package runner

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// FormatStages writes a schedule as the stages property reads it:
// DURATION:THREADS[:TARGET] per stage, comma-separated ("30s:4,10s:64:5000").
func FormatStages(stages []Stage) string {
	parts := make([]string, len(stages))
	for i, st := range stages {
		parts[i] = fmt.Sprintf("%s:%d", st.Duration, st.Threads)
		if st.Target > 0 {
			parts[i] += ":" + strconv.FormatFloat(st.Target, 'f', -1, 64)
		}
	}
	return strings.Join(parts, ",")
}

// ParseStages reads a schedule written by FormatStages.
func ParseStages(s string) ([]Stage, error) {
	var out []Stage
	for i, part := range strings.Split(s, ",") {
		f := strings.Split(strings.TrimSpace(part), ":")
		bad := func(why string) error {
			return fmt.Errorf("stage %d %q: %s; want DURATION:THREADS[:TARGET], such as 30s:64 or 30s:64:5000", i+1, part, why)
		}
		if len(f) < 2 || len(f) > 3 {
			return nil, bad("wrong number of fields")
		}
		d, err := time.ParseDuration(f[0])
		if err != nil || d <= 0 {
			return nil, bad("duration not a positive Go duration")
		}
		threads, err := strconv.Atoi(f[1])
		if err != nil || threads < 1 {
			return nil, bad("threads not a whole number >= 1")
		}
		st := Stage{Duration: d, Threads: threads}
		if len(f) == 3 {
			if st.Target, err = strconv.ParseFloat(f[2], 64); err != nil || !validRate(st.Target) {
				return nil, bad("target not a rate >= 0")
			}
		}
		out = append(out, st)
	}
	return out, nil
}
