package cost

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/internal/bounds"
)

// builtinYAML is the catalogue shipped with dbarena (prices.yaml). It is
// parsed afresh by every call to Default, so no caller can change what
// another sees.
//
//go:embed prices.yaml
var builtinYAML []byte

// Catalogue is a set of prices: virtual machines (and add-ons such as
// local SSD) by name, and DynamoDB's. Every price carries the date its
// file was compiled, since list prices change and a cost figure is only
// as good as the date of its prices.
type Catalogue struct {
	// Compiled is when the prices were taken, "2006-01" or "2006-01-02".
	Compiled string `yaml:"compiled" json:"compiled"`
	// Note says how the prices were gathered and how far to trust them.
	Note string `yaml:"note" json:"note,omitempty"`
	// Sources are the pages the prices come from.
	Sources []string `yaml:"sources" json:"sources"`
	// Instances are keyed by the provider's name for the machine type
	// ("i3.large", "n2d-standard-4").
	Instances map[string]Instance `yaml:"instances" json:"instances"`
	// DynamoDB is nil when the file has no DynamoDB prices.
	DynamoDB *DynamoDBPrices `yaml:"dynamodb" json:"dynamodb"`
}

// Instance is the on-demand price of one machine type, or of an add-on
// billed per unit such as a local SSD partition.
type Instance struct {
	// Name is the catalogue key; it is filled in on loading.
	Name     string `yaml:"-" json:"-"`
	Provider string `yaml:"provider" json:"provider"`
	Region   string `yaml:"region" json:"region"`
	VCPUs    int    `yaml:"vcpus" json:"vcpus"`
	// MemoryGiB is the memory in GiB (GCP's "GB" are GiB too).
	MemoryGiB float64 `yaml:"memory_gib" json:"memory_gib"`
	// LocalNVMeGB is the local NVMe storage included in the price, in
	// the provider's GB (0: none included).
	LocalNVMeGB float64 `yaml:"local_nvme_gb" json:"local_nvme_gb"`
	// HourlyUSD is the on-demand price per hour. MonthlyUSD is set
	// instead for what the provider prices per month (GCP local SSD is
	// per GB-month); exactly one of the two is set.
	HourlyUSD  float64 `yaml:"hourly_usd" json:"hourly_usd,omitempty"`
	MonthlyUSD float64 `yaml:"monthly_usd" json:"monthly_usd,omitempty"`
	Note       string  `yaml:"note" json:"note,omitempty"`
	// Source is the page of this price, when more precise than the
	// catalogue's sources.
	Source string `yaml:"source" json:"source,omitempty"`
	// Compiled is the Compiled date of the file the entry came from.
	Compiled string `yaml:"-" json:"-"`
}

// Monthly is the instance's cost for a month of HoursPerMonth hours.
func (i Instance) Monthly() float64 {
	if i.MonthlyUSD > 0 {
		return i.MonthlyUSD
	}
	return i.HourlyUSD * HoursPerMonth
}

// DynamoDBPrices are DynamoDB's prices in one region and table class.
type DynamoDBPrices struct {
	Region string `yaml:"region" json:"region"`
	// WriteRequestUnitsPerMillion and ReadRequestUnitsPerMillion are the
	// on-demand prices of a million request units.
	WriteRequestUnitsPerMillion float64 `yaml:"write_request_units_per_million" json:"write_request_units_per_million"`
	ReadRequestUnitsPerMillion  float64 `yaml:"read_request_units_per_million" json:"read_request_units_per_million"`
	// WCUHour and RCUHour are the provisioned prices of one capacity unit
	// for an hour.
	WCUHour float64 `yaml:"wcu_hour" json:"wcu_hour"`
	RCUHour float64 `yaml:"rcu_hour" json:"rcu_hour"`
	// StorageGBMonth is the price of a GB stored for a month.
	StorageGBMonth float64 `yaml:"storage_gb_month" json:"storage_gb_month"`
	Source         string  `yaml:"source" json:"source,omitempty"`
	// Compiled is the Compiled date of the file the prices came from.
	Compiled string `yaml:"-" json:"-"`
}

// Default returns the built-in catalogue: the instance types of the
// published studies dbarena reproduces, and DynamoDB in us-east-1.
func Default() (*Catalogue, error) {
	c, err := parse(bytes.NewReader(builtinYAML), true)
	if err != nil {
		return nil, fmt.Errorf("built-in price catalogue: %w", err)
	}
	return c, nil
}

// ParseCatalogue strictly decodes one catalogue file: an unknown key is
// an error naming it, its line and the closest valid key, since a
// misspelt "hourly_usd" would otherwise price an instance at zero.
func ParseCatalogue(r io.Reader) (*Catalogue, error) {
	return parse(r, false)
}

// LoadCatalogue returns the built-in catalogue with the entries of the
// file read from r added to it or replacing built-in ones (see Merge).
func LoadCatalogue(r io.Reader) (*Catalogue, error) {
	base, err := Default()
	if err != nil {
		return nil, err
	}
	over, err := ParseCatalogue(r)
	if err != nil {
		return nil, fmt.Errorf("price override: %w", err)
	}
	return base.Merge(over), nil
}

// LoadCatalogueFile is LoadCatalogue of the file at path, which may hold
// up to bounds.MaxFileBytes; errors name the file.
func LoadCatalogueFile(path string) (*Catalogue, error) {
	b, err := bounds.ReadFile(path, bounds.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	cat, err := LoadCatalogue(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cat, nil
}

// Merge returns c with the entries of over added or replacing c's. An
// entry replaces the one of the same name whole, not field by field, so
// that a corrected price is never paired with specifications it was not
// given for; likewise over's DynamoDB prices replace c's as a block.
// Sources are the union of both; Compiled stays c's, and each entry keeps
// the date of the file it came from.
func (c *Catalogue) Merge(over *Catalogue) *Catalogue {
	out := *c
	out.Instances = maps.Clone(c.Instances)
	if out.Instances == nil {
		out.Instances = map[string]Instance{}
	}
	maps.Copy(out.Instances, over.Instances)
	if over.DynamoDB != nil {
		d := *over.DynamoDB
		out.DynamoDB = &d
	} else if c.DynamoDB != nil {
		d := *c.DynamoDB
		out.DynamoDB = &d
	}
	out.Sources = slices.Clone(c.Sources)
	for _, s := range over.Sources {
		if !slices.Contains(out.Sources, s) {
			out.Sources = append(out.Sources, s)
		}
	}
	return &out
}

// Instance returns the entry called name. An unknown name gives an
// *UnknownInstanceError listing the names close to it.
func (c *Catalogue) Instance(name string) (Instance, error) {
	if in, ok := c.Instances[name]; ok {
		return in, nil
	}
	names := slices.Sorted(maps.Keys(c.Instances))
	return Instance{}, &UnknownInstanceError{Name: name, Close: closeNames(name, names), Known: len(names)}
}

// UnknownInstanceError is a name not in the catalogue.
type UnknownInstanceError struct {
	Name string
	// Close are catalogue names near Name: a small edit away, or of the
	// same family ("i3.4xlarge" -> "i3.2xlarge").
	Close []string
	// Known is the number of entries in the catalogue.
	Known int
}

func (e *UnknownInstanceError) Error() string {
	msg := fmt.Sprintf("instance %q is not in the price catalogue (%d entries)", e.Name, e.Known)
	if len(e.Close) > 0 {
		msg += "; close: " + strings.Join(e.Close, ", ")
	}
	return msg + "; add it with a price override file"
}

// parse decodes and validates one catalogue. builtin asks for the
// stricter checks the shipped file must pass: every entry fully
// described and every section present.
func parse(r io.Reader, builtin bool) (*Catalogue, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(r).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty price catalogue")
		}
		return nil, fmt.Errorf("read price catalogue: %w", err)
	}
	if err := checkKeys(&doc, reflect.TypeFor[Catalogue](), ""); err != nil {
		return nil, err
	}
	var c Catalogue
	if err := doc.Decode(&c); err != nil {
		return nil, fmt.Errorf("decode price catalogue: %w", err)
	}
	for name, in := range c.Instances {
		in.Name, in.Compiled = name, c.Compiled
		c.Instances[name] = in
	}
	if c.DynamoDB != nil {
		c.DynamoDB.Compiled = c.Compiled
	}
	if err := c.validate(builtin); err != nil {
		return nil, err
	}
	return &c, nil
}

// validate reports every problem of a decoded catalogue at once.
func (c *Catalogue) validate(builtin bool) error {
	var errs []error
	if c.Compiled == "" {
		errs = append(errs, errors.New("compiled: missing; say when the prices were taken (2006-01 or 2006-01-02)"))
	} else if !validDate(c.Compiled) {
		errs = append(errs, fmt.Errorf("compiled %q: want a date, 2006-01 or 2006-01-02", c.Compiled))
	}
	if builtin && (len(c.Sources) == 0 || c.DynamoDB == nil || len(c.Instances) == 0) {
		errs = append(errs, errors.New("sources, instances and dynamodb are all required"))
	}
	for _, name := range slices.Sorted(maps.Keys(c.Instances)) {
		for _, err := range c.Instances[name].validate(builtin) {
			errs = append(errs, fmt.Errorf("instances.%s: %w", name, err))
		}
	}
	if c.DynamoDB != nil {
		for _, err := range c.DynamoDB.validate() {
			errs = append(errs, fmt.Errorf("dynamodb: %w", err))
		}
	}
	return errors.Join(errs...)
}

func (i Instance) validate(builtin bool) []error {
	var errs []error
	switch {
	case i.Name == "":
		errs = append(errs, errors.New("empty instance name"))
	case (i.HourlyUSD > 0) == (i.MonthlyUSD > 0):
		errs = append(errs, fmt.Errorf("want exactly one of hourly_usd and monthly_usd above 0, got %v and %v",
			i.HourlyUSD, i.MonthlyUSD))
	}
	for _, f := range []struct {
		key string
		v   float64
	}{
		{"vcpus", float64(i.VCPUs)}, {"memory_gib", i.MemoryGiB}, {"local_nvme_gb", i.LocalNVMeGB},
		{"hourly_usd", i.HourlyUSD}, {"monthly_usd", i.MonthlyUSD},
	} {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			errs = append(errs, fmt.Errorf("%s %v: want a finite number, 0 or more", f.key, f.v))
		}
	}
	switch {
	case i.HourlyUSD > bounds.MaxHourlyUSD:
		errs = append(errs, fmt.Errorf("hourly_usd %v: want at most %g dollars a machine-hour", i.HourlyUSD, bounds.MaxHourlyUSD))
	case i.MonthlyUSD > bounds.MaxHourlyUSD*HoursPerMonth:
		errs = append(errs, fmt.Errorf("monthly_usd %v: want at most %g dollars a machine-month", i.MonthlyUSD, bounds.MaxHourlyUSD*HoursPerMonth))
	}
	if i.VCPUs > bounds.MaxCores {
		errs = append(errs, fmt.Errorf("vcpus %d: want at most %d", i.VCPUs, bounds.MaxCores))
	}
	if builtin && (i.Provider == "" || i.Region == "" || i.Source == "") {
		errs = append(errs, errors.New("provider, region and source are required"))
	}
	return errs
}

func (p *DynamoDBPrices) validate() []error {
	var errs []error
	for _, f := range []struct {
		key string
		v   float64
	}{
		{"write_request_units_per_million", p.WriteRequestUnitsPerMillion},
		{"read_request_units_per_million", p.ReadRequestUnitsPerMillion},
		{"wcu_hour", p.WCUHour}, {"rcu_hour", p.RCUHour}, {"storage_gb_month", p.StorageGBMonth},
	} {
		// The section replaces the built-in one whole (see Merge), so a
		// missing price would be a zero price, not the built-in one.
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			errs = append(errs, fmt.Errorf("%s %v: want a price above 0", f.key, f.v))
		}
	}
	if p.Region == "" {
		errs = append(errs, errors.New("region: missing"))
	}
	return errs
}

func validDate(s string) bool {
	for _, layout := range []string{"2006-01", "2006-01-02"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}
