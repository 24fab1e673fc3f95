package cost

import (
	"errors"
	"fmt"
	"math"
)

// HoursPerMonth is the month every monthly figure uses: 8,760 hours a
// year / 12. The AWS Pricing Calculator and the Google Cloud pricing
// calculator both bill a month as 730 hours, so monthly figures here
// match theirs.
const HoursPerMonth = 730

// SecondsPerMonth is HoursPerMonth in seconds, 2,628,000: the seconds a
// throughput in ops/s runs for in a month.
const SecondsPerMonth = HoursPerMonth * 3600

// Resource is a number of identical catalogue entries in a deployment,
// such as 3 x i4i.xlarge, or 4 x local-ssd on a GCP machine.
type Resource struct {
	// Instance is the catalogue name. It may be empty for a cost the
	// catalogue does not know, given entirely by ExtraHourly.
	Instance string
	Count    int
	// ExtraHourly is added per unit per hour for what the catalogue
	// entry leaves out: an EBS volume, a licence, a support plan share.
	ExtraHourly float64
}

// MonthlyCost is what the resources cost for a month of HoursPerMonth
// hours: per resource, Count x (the entry's monthly price + ExtraHourly x
// HoursPerMonth). Every problem is reported, not only the first.
func MonthlyCost(cat *Catalogue, resources []Resource) (float64, error) {
	if len(resources) == 0 {
		return 0, errors.New("monthly cost: no resources")
	}
	var total float64
	var errs []error
	for i, r := range resources {
		m, err := r.monthly(cat)
		if err != nil {
			errs = append(errs, fmt.Errorf("resource %d (%s): %w", i+1, r.label(), err))
			continue
		}
		total += m
	}
	if err := errors.Join(errs...); err != nil {
		return 0, fmt.Errorf("monthly cost: %w", err)
	}
	return total, nil
}

func (r Resource) monthly(cat *Catalogue) (float64, error) {
	var errs []error
	if r.Count < 1 {
		errs = append(errs, fmt.Errorf("count %d: want 1 or more", r.Count))
	}
	if r.ExtraHourly < 0 || math.IsNaN(r.ExtraHourly) || math.IsInf(r.ExtraHourly, 0) {
		errs = append(errs, fmt.Errorf("extra hourly %v: want a finite price, 0 or more", r.ExtraHourly))
	}
	unit := r.ExtraHourly * HoursPerMonth
	switch {
	case r.Instance != "" && cat == nil:
		errs = append(errs, errors.New("no price catalogue"))
	case r.Instance != "":
		in, err := cat.Instance(r.Instance)
		if err != nil {
			errs = append(errs, err)
		}
		unit += in.Monthly()
	case r.ExtraHourly == 0:
		errs = append(errs, errors.New("neither an instance nor an extra hourly price"))
	}
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	return float64(r.Count) * unit, nil
}

func (r Resource) label() string {
	if r.Instance == "" {
		return fmt.Sprintf("%d x extra", r.Count)
	}
	return fmt.Sprintf("%d x %s", r.Count, r.Instance)
}
