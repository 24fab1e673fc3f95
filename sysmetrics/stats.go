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
	// NetLink is the link of known capacity that was the busiest in
	// most of the samples, MeanNetLinkBps its mean bytes per second in
	// its busier direction over those samples and NetLinkCapacityBps its
	// capacity ("" and NaN: no link of known capacity).
	NetLink                            string
	MeanNetLinkBps, NetLinkCapacityBps float64
	// MeanLeadThreadPercent is a process tree's first thread's mean
	// share of time on a CPU or waiting for one (NaN: not measured).
	MeanLeadThreadPercent float64
	// MeanCoreBusy and MeanCoreSteal are a machine's cores' mean busy
	// and steal percent, by core number (nil: not measured).
	MeanCoreBusy, MeanCoreSteal map[int]float64
}

// Summarize returns one Stats per host for the samples whose Time lies in
// [from, to], both ends included, sorted by host. NaN figures are left out
// of means and maxima; the Role is the host's first sample's.
func Summarize(samples []Sample, from, to time.Time) []Stats {
	byHost := map[string]*hostAcc{}
	for _, s := range samples {
		if s.Time.Before(from) || s.Time.After(to) {
			continue
		}
		a := byHost[s.Host]
		if a == nil {
			a = &hostAcc{st: Stats{Host: s.Host, Role: s.Role, MaxCPU: math.Inf(-1), MaxMemory: math.Inf(-1)}}
			byHost[s.Host] = a
		}
		a.add(s)
	}
	out := make([]Stats, 0, len(byHost))
	for _, a := range byHost {
		out = append(out, a.stats())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out
}

// hostAcc sums one host's samples: the means' sums and counts (each
// figure's own: a figure not measured in a sample is left out of its
// mean), the links' and the cores' figures, and the maxima.
type hostAcc struct {
	st     Stats
	sums   [9]float64
	counts [9]int
	links  map[string]*linkAcc
	cores  map[int]*coreAcc
}

// add counts one sample of the host.
func (a *hostAcc) add(s Sample) {
	a.st.Samples++
	for i, v := range [9]float64{s.CPUPercent, s.DiskReadBps, s.DiskWriteBps, s.NetRxBps, s.NetTxBps,
		s.DiskReadIOPS, s.DiskWriteIOPS, s.DiskBusyPercent, s.LeadThreadPercent} {
		if !math.IsNaN(v) {
			a.sums[i] += v
			a.counts[i]++
		}
	}
	if s.NetLink != "" && !math.IsNaN(s.NetLinkBps) {
		if a.links == nil {
			a.links = map[string]*linkAcc{}
		}
		l := a.links[s.NetLink]
		if l == nil {
			l = &linkAcc{}
			a.links[s.NetLink] = l
		}
		l.sum, l.n, l.capacity = l.sum+s.NetLinkBps, l.n+1, s.NetLinkCapacityBps
	}
	for c, v := range s.CoreBusyPercent {
		if a.cores == nil {
			a.cores = map[int]*coreAcc{}
		}
		ca := a.cores[c]
		if ca == nil {
			ca = &coreAcc{}
			a.cores[c] = ca
		}
		ca.busy, ca.steal, ca.n = ca.busy+v, ca.steal+s.CoreStealPercent[c], ca.n+1
	}
	// math.Max returns NaN if either argument is NaN: skip those.
	if !math.IsNaN(s.CPUPercent) {
		a.st.MaxCPU = math.Max(a.st.MaxCPU, s.CPUPercent)
	}
	if !math.IsNaN(s.MemoryBytes) {
		a.st.MaxMemory = math.Max(a.st.MaxMemory, s.MemoryBytes)
	}
}

// stats are the host's figures from the samples added.
func (a *hostAcc) stats() Stats {
	mean := func(i int) float64 {
		if a.counts[i] == 0 {
			return math.NaN()
		}
		return a.sums[i] / float64(a.counts[i])
	}
	st := a.st
	st.MeanCPU, st.MeanDiskReadBps, st.MeanDiskWriteBps = mean(0), mean(1), mean(2)
	st.MeanNetRxBps, st.MeanNetTxBps = mean(3), mean(4)
	st.MeanDiskReadIOPS, st.MeanDiskWriteIOPS, st.MeanDiskBusyPercent = mean(5), mean(6), mean(7)
	st.MeanLeadThreadPercent = mean(8)
	st.MaxCPU, st.MaxMemory = finite(st.MaxCPU), finite(st.MaxMemory)
	st.NetLink, st.MeanNetLinkBps, st.NetLinkCapacityBps = busiestOf(a.links)
	for c, ca := range a.cores {
		if st.MeanCoreBusy == nil {
			st.MeanCoreBusy, st.MeanCoreSteal = map[int]float64{}, map[int]float64{}
		}
		st.MeanCoreBusy[c], st.MeanCoreSteal[c] = ca.busy/float64(ca.n), ca.steal/float64(ca.n)
	}
	return st
}

// finite turns the -Inf a maximum starts from into NaN: nothing measured.
func finite(v float64) float64 {
	if math.IsInf(v, -1) {
		return math.NaN()
	}
	return v
}

// coreAcc sums one core's samples.
type coreAcc struct {
	busy, steal float64
	n           int
}

// linkAcc sums one link's samples as the busiest.
type linkAcc struct {
	sum, capacity float64
	n             int
}

// busiestOf is the link that was the busiest in most samples (the higher
// share of its capacity on a tie, then the name), its mean rate and its
// capacity.
func busiestOf(links map[string]*linkAcc) (string, float64, float64) {
	name, best := "", (*linkAcc)(nil)
	for n, l := range links {
		switch {
		case best == nil, l.n > best.n,
			l.n == best.n && l.sum/l.capacity > best.sum/best.capacity,
			l.n == best.n && l.sum/l.capacity == best.sum/best.capacity && n < name:
			name, best = n, l
		}
	}
	if best == nil {
		return "", math.NaN(), math.NaN()
	}
	return name, best.sum / float64(best.n), best.capacity
}
