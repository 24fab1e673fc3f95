package workload

import (
	"fmt"
	"math/rand/v2"
	"unsafe"

	"github.com/dbarena/dbarena/properties/core"
	"github.com/dbarena/dbarena/record"
	"github.com/dbarena/dbarena/workload/generator"
)

// Workload is YCSB's CoreWorkload for one run: the configuration and the
// state that all workers share (the load key sequence, the run-phase insert
// sequence and the shared sequential chooser). Each worker draws from its own
// Worker, made by NewWorker.
type Workload struct {
	cfg        Config
	fieldNames []string
	hashed     bool
	// loadSeq hands out key numbers to the load phase, from insertstart.
	loadSeq *generator.Counter
	// insertSeq hands out run-phase insert key numbers, from recordcount,
	// and tells the latest and exponential choosers which keys exist.
	insertSeq  *generator.AcknowledgedCounter
	sequential *generator.Sequential
	opWeights  []float64
	// keySpaceHi is the upper bound of the zipfian key chooser.
	keySpaceHi int64
	// The choosers below keep no state between draws and are shared by
	// all workers; latest is the exception and is cloned per worker.
	ops      *generator.Discrete
	keys     generator.Int
	latest   *generator.SkewedLatest
	fieldLen generator.Int
	scanLen  generator.Int
}

// New prepares a workload. The configuration must have passed Validate.
func New(cfg Config) (*Workload, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w := &Workload{
		cfg:        cfg,
		fieldNames: cfg.FieldNames(),
		hashed:     cfg.InsertOrder != InsertOrdered,
		loadSeq:    generator.NewCounter(cfg.InsertStart),
		insertSeq:  generator.NewAcknowledgedCounter(cfg.RecordCount),
	}
	if err := cfg.ValidateKeys(); err != nil {
		return nil, err
	}
	lo, hi := cfg.InsertStart, cfg.InsertStart+cfg.EffectiveInsertCount()-1
	if cfg.RequestDistribution == DistSequential {
		seq, err := generator.NewSequential(lo, hi)
		if err != nil {
			return nil, fmt.Errorf("requestdistribution=sequential: %w", err)
		}
		w.sequential = seq
	}
	// YCSB sizes the zipfian key space for the inserts the run is expected
	// to make (twice the expected count), so that the popular keys do not
	// move as records are added.
	expectedNew := int64(float64(cfg.OperationCount) * cfg.InsertProportion * 2)
	w.keySpaceHi = hi + 1 + expectedNew
	w.opWeights = make([]float64, NumKinds)
	w.opWeights[Read] = cfg.ReadProportion
	w.opWeights[Update] = cfg.UpdateProportion
	w.opWeights[Insert] = cfg.InsertProportion
	w.opWeights[Scan] = cfg.ScanProportion
	w.opWeights[ReadModifyWrite] = cfg.ReadModifyWriteProportion
	w.opWeights[Delete] = cfg.DeleteProportion
	w.opWeights[Transfer] = cfg.TransferProportion
	if cfg.IsTPCC() {
		for k, share := range cfg.TPCC.Mix {
			w.opWeights[NewOrder+OpKind(k)] = share
		}
	}
	if err := w.buildChoosers(); err != nil {
		return nil, err
	}
	return w, nil
}

// ValidateKeys checks that the configuration leaves keys to load and to
// choose among. Validate does not: a configuration is also parsed for
// what it says of other things (the plan of an experiment, a property
// file's typos) before its record count is known. Without this check the
// key chooser would report only "upper bound -1 is below lower bound 0";
// this one names the cause: no recordcount (YCSB's default is 0, which
// the workload files set), or an insertstart at or beyond it.
func (cfg Config) ValidateKeys() error {
	if cfg.EffectiveInsertCount() > 0 {
		return nil
	}
	if cfg.RecordCount > 0 {
		return cfg.errorf(core.InsertStart, "%d leaves none of recordcount %d records to load or choose keys among: want an insertstart below recordcount",
			cfg.InsertStart, cfg.RecordCount)
	}
	where := "the default"
	if src, ok := cfg.sources[core.RecordCount]; ok {
		where = src.String()
	}
	return fmt.Errorf("recordcount=0 (%s): no records to load or choose keys among; set recordcount (-p recordcount=N) or -P a workload file such as workloada", where)
}

// buildChoosers makes the shared generators once, so a bad combination
// fails before any database is touched and zeta sums are paid once per run,
// not once per worker.
func (w *Workload) buildChoosers() error {
	var err error
	if w.ops, err = generator.NewDiscrete(w.opWeights); err != nil {
		return fmt.Errorf("operation proportions: %w", err)
	}
	if w.cfg.RequestDistribution == DistLatest {
		w.latest = generator.NewSkewedLatest(w.insertSeq)
	} else if w.keys, err = w.keyChooser(); err != nil {
		return fmt.Errorf("requestdistribution=%s: %w", w.cfg.RequestDistribution, err)
	}
	if w.fieldLen, err = lengthGenerator(w.cfg.FieldLengthDistribution, w.cfg.MinFieldLength, w.cfg.FieldLength); err != nil {
		return fmt.Errorf("fieldlengthdistribution=%s: %w", w.cfg.FieldLengthDistribution, err)
	}
	if w.scanLen, err = lengthGenerator(w.cfg.ScanLengthDistribution, w.cfg.MinScanLength, w.cfg.MaxScanLength); err != nil {
		return fmt.Errorf("scanlengthdistribution=%s: %w", w.cfg.ScanLengthDistribution, err)
	}
	return nil
}

// Config returns the workload's configuration.
func (w *Workload) Config() Config { return w.cfg }

// OperationWeights returns the operation mix's weights, indexed by Kind
// (a copy).
func (w *Workload) OperationWeights() []float64 { return append([]float64(nil), w.opWeights...) }

// FieldNames returns the names of the record's fields.
func (w *Workload) FieldNames() []string { return w.fieldNames }

// LastInsertedKeyNum returns the highest run-phase key number below which
// every insert has been acknowledged.
func (w *Workload) LastInsertedKeyNum() int64 { return w.insertSeq.Last() }

// Worker draws operations for one worker. It is not safe for concurrent use.
type Worker struct {
	// pcg is the worker's random state, held inside the (large) Worker so
	// that two workers' states never share a cache line: allocated on
	// their own, 16-byte PCG states sit side by side and every draw of one
	// worker evicts the other's, which made PCG 40% of a two-worker run.
	pcg        rand.PCG
	_          [64]byte
	w          *Workload
	r          *rand.Rand
	ops        *generator.Discrete
	keys       generator.Int
	fieldLen   generator.Int
	scanLen    generator.Int
	keyBuf     []byte
	toKeyBuf   []byte
	valueBuf   []byte
	verifyBuf  []byte
	values     record.Record
	oneField   []string
	op         Operation
	maxKeyTrys int
}

// NewWorker returns the operation source of worker id. Its random stream is
// derived from seed and id alone, so a run with the same seed and worker
// count draws the same operations.
func (w *Workload) NewWorker(id int, seed uint64) (*Worker, error) {
	keys := w.keys
	if w.latest != nil {
		keys = w.latest.Clone()
	}
	wk := &Worker{
		w: w, ops: w.ops, keys: keys, fieldLen: w.fieldLen, scanLen: w.scanLen,
		values:     make(record.Record, 0, len(w.fieldNames)),
		oneField:   make([]string, 1),
		maxKeyTrys: 1000,
	}
	wk.pcg.Seed(seed, uint64(id)+1)
	wk.r = rand.New(&wk.pcg)
	wk.op.Table = w.cfg.Table
	return wk, nil
}

func (w *Workload) keyChooser() (generator.Int, error) {
	c := w.cfg
	lo, hi := c.InsertStart, c.InsertStart+c.EffectiveInsertCount()-1
	switch c.RequestDistribution {
	case DistUniform:
		return generator.NewUniform(lo, hi)
	case DistSequential:
		return w.sequential, nil
	case DistZipfian:
		return generator.NewScrambledZipfianTheta(lo, w.keySpaceHi, c.ZipfianConstant)
	case DistHotspot:
		return generator.NewHotspot(lo, hi, c.HotspotDataFraction, c.HotspotOpnFraction)
	case DistExponential:
		return generator.NewExponential(c.ExponentialPercentile, float64(c.RecordCount)*c.ExponentialFrac)
	}
	return nil, fmt.Errorf("unsupported request distribution")
}

func lengthGenerator(d Distribution, lo, hi int64) (generator.Int, error) {
	switch d {
	case DistConstant:
		return generator.NewConstant(hi), nil
	case DistUniform:
		return generator.NewUniform(lo, hi)
	case DistZipfian:
		return generator.NewZipfian(lo, hi, generator.ZipfianConstant)
	}
	return nil, fmt.Errorf("unsupported length distribution")
}

// setKey builds the key of keynum into the worker's buffer. The string
// shares the buffer's memory and stays valid until the next operation; this
// keeps key generation free of allocations.
func (wk *Worker) setKey(keynum int64) {
	wk.keyBuf = AppendKey(wk.keyBuf[:0], keynum, wk.w.hashed, wk.w.cfg.ZeroPadding)
	wk.op.KeyNum = keynum
	wk.op.Key = unsafe.String(unsafe.SliceData(wk.keyBuf), len(wk.keyBuf))
}

// setToKey builds a transfer's receiving key as setKey builds the paying
// one, in a buffer of its own.
func (wk *Worker) setToKey(keynum int64) {
	wk.toKeyBuf = AppendKey(wk.toKeyBuf[:0], keynum, wk.w.hashed, wk.w.cfg.ZeroPadding)
	wk.op.ToKeyNum = keynum
	wk.op.ToKey = unsafe.String(unsafe.SliceData(wk.toKeyBuf), len(wk.toKeyBuf))
}
