package spec

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/dbarena/dbarena/analysis/cost"
)

// Cost is what a target would cost to run: machines from the price
// catalogue, or DynamoDB's bill for the measured operations. A local
// deployment costs nothing unless its cost says what machine it stands
// for.
type Cost struct {
	Resources []CostResource
	// DynamoDB prices the target as DynamoDB: its bill for the measured
	// reads and writes, on demand and provisioned.
	DynamoDB bool
	Line     int
}

// CostResource is Count units of a catalogue instance, plus ExtraHourly
// per unit for what the catalogue leaves out (a disk, a licence).
type CostResource struct {
	Instance    string
	Count       int
	ExtraHourly float64
	Line        int
}

// costDynamoDB is the scalar form of a target's cost.
const costDynamoDB = "dynamodb"

// cost decodes a target's cost: "dynamodb", one resource mapping, or a
// list of them.
func (d *decoder) cost(n *yaml.Node, path string) *Cost {
	if n == nil {
		return nil
	}
	n = resolve(n)
	c := &Cost{Line: n.Line}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Value != costDynamoDB {
			d.errorf(n, path, "want %q, a resource such as {instance: n2d-standard-4, count: 3} or a list of them, got %q", costDynamoDB, n.Value)
			return nil
		}
		c.DynamoDB = true
	case yaml.MappingNode:
		if r, ok := d.costResource(n, path); ok {
			c.Resources = append(c.Resources, r)
		}
	default:
		items, ok := d.sequence(n, path)
		if !ok {
			return nil
		}
		for i, item := range items {
			if r, ok := d.costResource(item, fmt.Sprintf("%s[%d]", path, i)); ok {
				c.Resources = append(c.Resources, r)
			}
		}
		if len(items) == 0 {
			d.errorf(n, path, "empty list: want at least one resource such as {instance: n2d-standard-4}")
		}
	}
	return c
}

func (d *decoder) costResource(n *yaml.Node, path string) (CostResource, bool) {
	r := CostResource{Count: 1, Line: n.Line}
	f, ok := d.mapping(n, path, sectionKeys("targets[].cost"))
	if !ok {
		return r, false
	}
	if v := f.get("instance"); v != nil {
		r.Instance, _ = d.str(v, join(path, "instance"))
	}
	if v := f.get("count"); v != nil {
		r.Count, _ = d.positiveInt(v, join(path, "count"))
	}
	if v := f.get("extra_hourly"); v != nil {
		if s, ok := d.scalar(v, join(path, "extra_hourly"), "a price in USD per hour"); ok {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || !(x >= 0) || math.IsInf(x, 1) {
				d.errorf(v, join(path, "extra_hourly"), "want a price in USD per hour, 0 or more, such as 0.08, got %q", s)
			}
			r.ExtraHourly = x
		}
	}
	if r.Instance == "" && r.ExtraHourly == 0 {
		d.errorf(n, path, "want an instance from the price catalogue (dbarena analyze cost --list-prices) or an extra_hourly price")
		return r, false
	}
	return r, true
}

// catalogue loads the built-in prices with the prices file laid over
// them, and checks every target's instances against them.
func (d *decoder) catalogue(s *Spec, n *yaml.Node) {
	var cat *cost.Catalogue
	var err error
	if n == nil {
		cat, err = cost.Default()
	} else if file, ok := d.str(n, "prices"); ok {
		s.PricesFile = file
		if !filepath.IsAbs(file) {
			file = filepath.Join(filepath.Dir(d.file), file)
		}
		cat, err = cost.LoadCatalogueFile(file)
	}
	if err != nil {
		d.errorf(n, "prices", "%v", err)
		return
	}
	if cat == nil {
		return
	}
	s.Catalogue = cat
	for i := range s.Targets {
		c := s.Targets[i].Cost
		if c == nil {
			continue
		}
		if c.DynamoDB && cat.DynamoDB == nil {
			d.errorf(n, "prices", "target %s is priced as DynamoDB but the catalogue has no dynamodb section", s.Targets[i].Name)
		}
		for _, r := range c.Resources {
			if r.Instance == "" {
				continue
			}
			if _, err := cat.Instance(r.Instance); err != nil {
				var ue *cost.UnknownInstanceError
				if errors.As(err, &ue) {
					d.errs = append(d.errs, &Error{File: d.file, Line: r.Line, Path: fmt.Sprintf("targets[%d].cost", i), Msg: err.Error()})
				}
			}
		}
	}
}
