package spec

// Rounds: the plan of an experiment whose repetitions interleave.

import (
	"math/rand/v2"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/workload"
)

// cellPlan is one target's trial of one block: what every round runs
// of it.
type cellPlan struct {
	t     *Target
	w     *Workload
	pt    []KV
	props *properties.Set
	cfg   workload.Config
	sig   string
}

// loadState is what a target has loaded so far in the plan.
type loadState struct {
	loaded string
	loads  int
	dirty  bool
}

// roundsPlan holds what adding a round needs: the blocks, each one
// workload at one matrix point with every target's trial of it, and each
// target's load state.
type roundsPlan struct {
	blocks [][]cellPlan
	state  map[*Target]*loadState
	rounds int
	// runs counts each cell's repetitions so far, by its run ID without
	// one: a round that leaves a decided row out does not number the
	// row's next repetition after the round.
	runs map[string]int
}

// rounds plans the experiment in rounds. Each target's first load comes
// first (the data its warm-up and calibration run on), then rounds
// 1..Repetitions. A round visits every block once and, in each block,
// every target once: the trials a comparison sets side by side run next
// to each other, so that a machine that drifts (a neighbour, the page
// cache, a JIT) moves them together; the order of the blocks and of the
// targets in each is drawn from the seed and the round (Randomized
// Multiple Interleaved Trials, Abedi and Brecht, ICPE 2017), so that
// nothing periodic lines up with one target. A single round keeps the
// file's order. A run that needs other data than its target holds, or
// follows one that changed keys, is preceded by a load.
func (b *builder) rounds(points [][]KV) {
	rp := &roundsPlan{state: map[*Target]*loadState{}, runs: map[string]int{}}
	for wi := range b.s.Workloads {
		w := &b.s.Workloads[wi]
		for _, pt := range points {
			var block []cellPlan
			for ti := range b.s.Targets {
				t := &b.s.Targets[ti]
				props, cfg, ok := b.trial(t, w, pt)
				if !ok {
					continue
				}
				block = append(block, cellPlan{t: t, w: w, pt: pt, props: props, cfg: cfg, sig: b.signature(cfg, props)})
			}
			if len(block) > 0 {
				rp.blocks = append(rp.blocks, block)
			}
		}
	}
	b.roundsPlan = rp
	for ti := range b.s.Targets {
		t := &b.s.Targets[ti]
		st := &loadState{}
		rp.state[t] = st
		if c := firstCell(rp.blocks, t); c != nil && b.s.Load.Enabled {
			st.loaded, st.loads = c.sig, 1
			b.add(b.loadStep(t, c.w, c.pt, c.props, c.cfg, 1))
		}
	}
	for range max(b.s.Run.Repetitions, 1) {
		b.addRound(nil)
	}
}

// firstCell is target t's cell its warm-up and calibration run on: its
// first that leaves the data as loaded, else its first.
func firstCell(blocks [][]cellPlan, t *Target) *cellPlan {
	var first *cellPlan
	for i := range blocks {
		for j := range blocks[i] {
			c := &blocks[i][j]
			if c.t != t {
				continue
			}
			if !changesKeys(c.cfg) {
				return c
			}
			if first == nil {
				first = c
			}
		}
	}
	return first
}

// changesKeys says a run of cfg leaves other data than it found: it
// inserts or deletes records, or its kind's runs always change it (a
// ledger's money, where a loss the weaker databases allow would carry
// over; TPC-C's orders).
func changesKeys(cfg workload.Config) bool {
	return cfg.InsertProportion > 0 || cfg.DeleteProportion > 0 || cfg.Kind.Info().RunChanges
}

// addRound appends the next round's steps: every block, or those visit
// keeps.
func (b *builder) addRound(visit func(workload string, params []KV) bool) {
	rp := b.roundsPlan
	rp.rounds++
	round := rp.rounds
	order := b.roundOrder(round)
	reps := b.s.Run.Repetitions
	if b.s.Run.RepetitionsAuto {
		reps = MaxRounds // every ID carries its repetition
	}
	for _, block := range order {
		if visit != nil && !visit(block[0].w.Name, block[0].pt) {
			continue
		}
		for _, c := range block {
			st := rp.state[c.t]
			if b.s.Load.Enabled && (c.sig != st.loaded || st.dirty) {
				st.loaded, st.loads, st.dirty = c.sig, st.loads+1, false
				ld := b.loadStep(c.t, c.w, c.pt, c.props, c.cfg, st.loads)
				ld.Round = round
				b.add(ld)
			}
			cell := runID(c.t, c.w, c.pt, 0, 1)
			rp.runs[cell]++
			rep := rp.runs[cell]
			run := b.runStep(c.t, c.w, c.pt, c.props, rep)
			run.Round = round
			run.ID = runID(c.t, c.w, c.pt, rep, reps)
			run.ChangesKeys = changesKeys(c.cfg)
			run.Data = c.sig
			b.add(run)
			st.dirty = run.ChangesKeys
		}
	}
}

// roundOrder is round rep's blocks in the order they run, each with its
// targets in order. Blocks on the same data (their first target's) stay
// together, so that a round loads each data once: the groups' order,
// the blocks' in each group and the targets' in each block are drawn
// from the seed and the round, except that round 1 begins with the data
// the first target's first load holds (its warm-up's). A plan of one
// round keeps the file's order.
func (b *builder) roundOrder(rep int) [][]cellPlan {
	rp := b.roundsPlan
	if !b.s.Run.RepetitionsAuto && b.s.Run.Repetitions <= 1 {
		order := make([][]cellPlan, len(rp.blocks))
		for i, block := range rp.blocks {
			order[i] = append([]cellPlan(nil), block...)
		}
		return order
	}
	var groups [][][]cellPlan
	at := map[string]int{}
	for _, block := range rp.blocks {
		sig := block[0].sig
		i, ok := at[sig]
		if !ok {
			i = len(groups)
			at[sig] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], append([]cellPlan(nil), block...))
	}
	rng := rand.New(rand.NewPCG(b.s.Seed, uint64(rep)))
	first := 0
	if rep == 1 {
		// the first load's data leads
		first = 1
		if c := firstCell(rp.blocks, rp.blocks[0][0].t); c != nil {
			i := at[c.sig]
			groups[0], groups[i] = groups[i], groups[0]
		}
	}
	rest := groups[min(first, len(groups)):]
	rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	for _, g := range groups {
		rng.Shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
		for _, block := range g {
			rng.Shuffle(len(block), func(i, j int) { block[i], block[j] = block[j], block[i] })
		}
	}
	var order [][]cellPlan
	for _, g := range groups {
		order = append(order, g...)
	}
	return order
}

// AddRound appends one more round to a plan in rounds and returns its
// steps (a slice of Steps). It is how repetitions: auto goes on until
// decided: the round visits the blocks (a workload at a matrix point,
// every target's trial of it) that visit keeps, all of them when visit
// is nil, in the order drawn for the round; each trial's repetition
// counts that cell's own. A plan in sequential order has no rounds to
// add.
func (p *Plan) AddRound(visit func(workload string, params []KV) bool) []Step {
	if p.builder == nil || p.builder.roundsPlan == nil {
		return nil
	}
	from := len(p.Steps)
	p.builder.addRound(visit)
	p.Steps = p.builder.plan.Steps
	return p.Steps[from:]
}

// Rounds is the number of rounds the plan holds (0 for a plan in
// sequential order).
func (p *Plan) Rounds() int {
	if p.builder == nil || p.builder.roundsPlan == nil {
		return 0
	}
	return p.builder.roundsPlan.rounds
}
