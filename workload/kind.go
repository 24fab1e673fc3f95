package workload

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/properties/core"
)

// Kind names a kind of workload: what its records are, how it loads and
// runs, and what is checked after. A workload names its kind in the
// property workload.kind (core.WorkloadKind); it is never inferred from
// another setting's value, so a setting set for the whole experiment
// cannot turn one kind into another.
type Kind string

// The workload kinds.
const (
	// KindCore is YCSB's CoreWorkload: records of fields, read, updated,
	// inserted, scanned and deleted in the proportions asked for.
	KindCore Kind = "core"
	// KindLedger is transfers between accounts whose balances sum to a
	// constant, audited after the run (docs/guide/ledger.md).
	KindLedger Kind = "ledger"
	// KindTPCC is TPC-C's five transactions over warehouses, with the
	// specification's consistency conditions checked after the run
	// (docs/guide/tpcc.md).
	KindTPCC Kind = "tpcc"
)

// KindInfo is what the kind table says of a kind.
type KindInfo struct {
	Kind Kind
	// Summary says in a line what the kind runs, for errors and docs.
	Summary string
	// RunChanges says every run of the kind leaves other data than it
	// found (a ledger's balances, TPC-C's orders), whatever its
	// proportions: the next step loads afresh.
	RunChanges bool
	// Needs is what the kind's operations need of a driver's sessions
	// beyond core YCSB's, in words with the interface ("SQL
	// transactions (driver.SQLTransactor)"); empty for none.
	Needs string
	// shape lists the kind's own settings that shape the data its load
	// writes (nil: none beyond core YCSB's).
	shape func(c Config) []Setting
	// prefixes and keys are the settings the kind owns: set on a
	// workload of another kind they are refused, and set for the whole
	// experiment, a target or a matrix point they reach this kind's
	// workloads only.
	prefixes, keys []string
}

// kinds is the kind table; docs/guide/workload-kinds.md says what else
// a new kind touches.
var kinds = []KindInfo{
	{Kind: KindCore, Summary: "YCSB's CoreWorkload: reads, updates, inserts, scans and deletes of records"},
	{Kind: KindLedger, Summary: "transfers between accounts whose balances must keep their sum", RunChanges: true,
		Needs: "transfers between accounts (driver.Transferer)",
		// Accounts hold balances where YCSB's records hold filler.
		shape: func(c Config) []Setting {
			return []Setting{{core.LedgerBalance, itoa(c.Ledger.Balance)}, {core.LedgerFloor, itoa(c.Ledger.Floor)}}
		},
		prefixes: []string{"ledger."}, keys: []string{core.TransferProportion}},
	{Kind: KindTPCC, Summary: "TPC-C's five transactions over warehouses", RunChanges: true,
		Needs: "SQL transactions (driver.SQLTransactor)",
		// TPC-C loads its own nine tables, sized by its warehouses.
		shape:    func(c Config) []Setting { return []Setting{{core.TPCCWarehouses, itoa(c.TPCC.Warehouses)}} },
		prefixes: []string{"tpcc."}},
}

// Kinds returns the kind table, in a copy.
func Kinds() []KindInfo { return slices.Clone(kinds) }

// KindChoices lists the kinds' names, "core, ledger, tpcc", for errors.
func KindChoices() string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = string(k.Kind)
	}
	return strings.Join(out, ", ")
}

// LookupKind returns the kind named name.
func LookupKind(name string) (KindInfo, error) {
	for _, k := range kinds {
		if string(k.Kind) == name {
			return k, nil
		}
	}
	return KindInfo{}, fmt.Errorf("%q: want a workload kind, one of %s", name, KindChoices())
}

// Info returns the kind's entry in the table (the zero KindInfo for a
// kind not in it).
func (k Kind) Info() KindInfo {
	i, _ := LookupKind(string(k))
	return i
}

// Lacking says that a driver's sessions cannot run the kind, whose
// they are ("this driver's", "driver redis's"): the one sentence for
// every place that finds out (the plan, the trial, the runner).
func (i KindInfo) Lacking(whose string) string {
	return fmt.Sprintf("workload.kind %s needs %s, which %s sessions do not offer", i.Kind, i.Needs, whose)
}

// Owns reports whether key is one of the kind's own settings.
func (i KindInfo) Owns(key string) bool {
	if slices.Contains(i.keys, key) {
		return true
	}
	return slices.ContainsFunc(i.prefixes, func(p string) bool { return strings.HasPrefix(key, p) })
}

// OwnerOf returns the kind whose own setting key is, and false for a
// setting every kind reads.
func OwnerOf(key string) (Kind, bool) {
	for _, k := range kinds {
		if k.Owns(key) {
			return k.Kind, true
		}
	}
	return "", false
}

// Reaches reports whether a setting reaches a workload of kind k when it
// is set for the whole experiment, a target or a matrix point: a kind's
// own settings reach its workloads only; every other setting reaches all.
func (k Kind) Reaches(key string) bool {
	owner, ok := OwnerOf(key)
	return !ok || owner == k
}

// KindOf reads the kind a workload's own settings name (core.WorkloadKind),
// KindCore when they name none.
func KindOf(p *properties.Set) (Kind, error) {
	v, src, ok := p.Lookup(core.WorkloadKind)
	if !ok {
		return KindCore, nil
	}
	info, err := LookupKind(strings.TrimSpace(v))
	if err != nil {
		return "", fmt.Errorf("%s: property %q: %w", src, core.WorkloadKind, err)
	}
	return info.Kind, nil
}

// checkOwnSettings refuses a setting of another kind given to a
// workload: tpcc.warehouses on a core workload ran YCSB's operations
// where TPC-C was meant, or the other way round.
func (c Config) checkOwnSettings() error {
	keys := make([]string, 0, len(c.sources))
	for k := range c.sources {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		owner, ok := OwnerOf(key)
		if !ok || owner == c.Kind {
			continue
		}
		if key == core.TransferProportion && c.TransferProportion == 0 {
			continue // no transfers asked for: YCSB's own zero
		}
		return c.errorf(key, "a setting of the %s kind (%s), and this workload's kind is %s: set %s=%s on the workload, or leave the setting out",
			owner, owner.Info().Summary, c.Kind, core.WorkloadKind, owner)
	}
	return nil
}

// Setting is one property and its value.
type Setting struct{ Key, Value string }

// DataShape lists the settings that shape the data a load of c writes,
// its kind's first: two workloads whose shapes are equal run on the
// same load. minfieldlength and fieldlengthdistribution are in it
// because they change the values written, not only their reads.
func (c Config) DataShape() []Setting {
	out := []Setting{{core.WorkloadKind, string(c.Kind)}}
	if shape := c.Kind.Info().shape; shape != nil {
		out = append(out, shape(c)...)
	}
	return append(out,
		Setting{core.Table, c.Table}, Setting{core.RecordCount, itoa(c.RecordCount)},
		Setting{core.InsertStart, itoa(c.InsertStart)}, Setting{core.InsertCount, itoa(c.EffectiveInsertCount())},
		Setting{core.FieldCount, itoa(int64(c.FieldCount))}, Setting{core.FieldLength, itoa(c.FieldLength)},
		Setting{core.MinFieldLength, itoa(c.MinFieldLength)},
		Setting{core.FieldLengthDistribution, string(c.FieldLengthDistribution)},
		Setting{core.FieldNamePrefix, c.FieldNamePrefix}, Setting{core.InsertOrder, string(c.InsertOrder)},
		Setting{core.ZeroPadding, itoa(int64(c.ZeroPadding))}, Setting{core.DataIntegrity, strconv.FormatBool(c.DataIntegrity)},
	)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
