package sysmetrics

import (
	"math"
	"sort"
	"time"
)

// Stats summarizes one host's samples over a window. A figure none of the
// samples measured is NaN.
type Stats struct {
	Host, Role string
	// Samples counts the host's samples in the window.
	Samples int
	// MeanCPU and MaxCPU are in CPUPercent's unit (100 = one core).
	MeanCPU, MaxCPU float64
	// MaxMemory is the peak of MemoryBytes.
	MaxMemory float64
	// Mean rates, bytes per second.
	MeanDiskReadBps, MeanDiskWriteBps   float64
	MeanDiskReadIOPS, MeanDiskWriteIOPS float64
	MeanDiskBusyPercent                 float64
	MeanNetRxBps, MeanNetTxBps          float64
}

// Summarize returns one Stats per host for the samples whose Time lies in
// [from, to], both ends included, sorted by host. NaN figures are left out
// of means and maxima; the Role is the host's first sample's.
func Summarize(samples []Sample, from, to time.Time) []Stats {
	type acc struct {
		st     Stats
		sums   [8]float64
		counts [8]int
	}
	byHost := map[string]*acc{}
	for _, s := range samples {
		if s.Time.Before(from) || s.Time.After(to) {
			continue
		}
		a := byHost[s.Host]
		if a == nil {
			a = &acc{st: Stats{Host: s.Host, Role: s.Role, MaxCPU: math.Inf(-1), MaxMemory: math.Inf(-1)}}
			byHost[s.Host] = a
		}
		a.st.Samples++
		for i, v := range [8]float64{s.CPUPercent, s.DiskReadBps, s.DiskWriteBps, s.NetRxBps, s.NetTxBps,
			s.DiskReadIOPS, s.DiskWriteIOPS, s.DiskBusyPercent} {
			if !math.IsNaN(v) {
				a.sums[i] += v
				a.counts[i]++
			}
		}
		// math.Max returns NaN if either argument is NaN: skip those.
		if !math.IsNaN(s.CPUPercent) {
			a.st.MaxCPU = math.Max(a.st.MaxCPU, s.CPUPercent)
		}
		if !math.IsNaN(s.MemoryBytes) {
			a.st.MaxMemory = math.Max(a.st.MaxMemory, s.MemoryBytes)
		}
	}
	out := make([]Stats, 0, len(byHost))
	for _, a := range byHost {
		mean := func(i int) float64 {
			if a.counts[i] == 0 {
				return math.NaN()
			}
			return a.sums[i] / float64(a.counts[i])
		}
		a.st.MeanCPU, a.st.MeanDiskReadBps, a.st.MeanDiskWriteBps = mean(0), mean(1), mean(2)
		a.st.MeanNetRxBps, a.st.MeanNetTxBps = mean(3), mean(4)
		a.st.MeanDiskReadIOPS, a.st.MeanDiskWriteIOPS, a.st.MeanDiskBusyPercent = mean(5), mean(6), mean(7)
		a.st.MaxCPU, a.st.MaxMemory = finite(a.st.MaxCPU), finite(a.st.MaxMemory)
		out = append(out, a.st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out
}

// finite turns the -Inf a maximum starts from into NaN: nothing measured.
func finite(v float64) float64 {
	if math.IsInf(v, -1) {
		return math.NaN()
	}
	return v
}
