package cost

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDefaultPrices pins the built-in list prices, so a change to
// prices.yaml is deliberate, and checks the GCP machine-type prices
// against GCP's own per-vCPU and per-GiB rates.
func TestDefaultPrices(t *testing.T) {
	cat, err := Default()
	require.NoError(t, err)
	require.Equal(t, "2025-06", cat.Compiled)
	require.Contains(t, cat.Note, "check")
	require.NotEmpty(t, cat.Sources)

	// us-central1 N2D: $0.027502 per vCPU-hour, $0.003686 per GiB-hour;
	// N2: $0.031611 and $0.004237.
	n2d := func(vcpus, gib float64) float64 { return vcpus*0.027502 + gib*0.003686 }
	n2 := func(vcpus, gib float64) float64 { return vcpus*0.031611 + gib*0.004237 }
	for name, want := range map[string]struct {
		provider, region string
		vcpus            int
		gib, nvme        float64
		hourly, monthly  float64
	}{
		"n2d-standard-2":  {"gcp", "us-central1", 2, 8, 0, n2d(2, 8), 0},
		"n2d-standard-4":  {"gcp", "us-central1", 4, 16, 0, n2d(4, 16), 0},
		"n2d-standard-8":  {"gcp", "us-central1", 8, 32, 0, n2d(8, 32), 0},
		"n2d-standard-16": {"gcp", "us-central1", 16, 64, 0, n2d(16, 64), 0},
		"n2-highmem-2":    {"gcp", "us-central1", 2, 16, 0, n2(2, 16), 0},
		"n2-highmem-4":    {"gcp", "us-central1", 4, 32, 0, n2(4, 32), 0},
		"n2-highmem-8":    {"gcp", "us-central1", 8, 64, 0, n2(8, 64), 0},
		// 375 GB x $0.080 per GB-month.
		"local-ssd":   {"gcp", "us-central1", 0, 0, 375, 0, 375 * 0.080},
		"i3.large":    {"aws", "us-east-1", 2, 15.25, 475, 0.156, 0},
		"i3.xlarge":   {"aws", "us-east-1", 4, 30.5, 950, 0.312, 0},
		"i3.2xlarge":  {"aws", "us-east-1", 8, 61, 1900, 0.624, 0},
		"i4i.large":   {"aws", "us-east-1", 2, 16, 468, 0.172, 0},
		"i4i.xlarge":  {"aws", "us-east-1", 4, 32, 937, 0.343, 0},
		"i4i.2xlarge": {"aws", "us-east-1", 8, 64, 1875, 0.686, 0},
		"c5.large":    {"aws", "us-east-1", 2, 4, 0, 0.085, 0},
		"c5.xlarge":   {"aws", "us-east-1", 4, 8, 0, 0.17, 0},
		"c5.2xlarge":  {"aws", "us-east-1", 8, 16, 0, 0.34, 0},
		"r5.large":    {"aws", "us-east-1", 2, 16, 0, 0.126, 0},
		"r5.xlarge":   {"aws", "us-east-1", 4, 32, 0, 0.252, 0},
	} {
		t.Run(name, func(t *testing.T) {
			in, err := cat.Instance(name)
			require.NoError(t, err)
			require.Equal(t, name, in.Name)
			require.Equal(t, want.provider, in.Provider)
			require.Equal(t, want.region, in.Region)
			require.Equal(t, want.vcpus, in.VCPUs)
			require.InDelta(t, want.gib, in.MemoryGiB, 1e-9)
			require.InDelta(t, want.nvme, in.LocalNVMeGB, 1e-9)
			require.InDelta(t, want.hourly, in.HourlyUSD, 1e-9)
			require.InDelta(t, want.monthly, in.MonthlyUSD, 1e-9)
			require.Equal(t, "2025-06", in.Compiled)
			require.True(t, strings.HasPrefix(in.Source, "https://"), in.Source)
		})
	}
	require.Len(t, cat.Instances, 21)
	// The per-vCPU and per-GiB rates add up to the machine types' list
	// prices, as GCP prices them.
	vcpu, gib := cat.Instances["n2d-vcpu"], cat.Instances["n2d-gib"]
	for _, name := range []string{"n2d-standard-2", "n2d-standard-4", "n2d-standard-8", "n2d-standard-16"} {
		in := cat.Instances[name]
		require.InDelta(t, in.HourlyUSD, float64(in.VCPUs)*vcpu.HourlyUSD+in.MemoryGiB*gib.HourlyUSD, 1e-6, name)
	}

	d := cat.DynamoDB
	require.NotNil(t, d)
	require.Equal(t, DynamoDBPrices{Region: "us-east-1",
		WriteRequestUnitsPerMillion: 0.625, ReadRequestUnitsPerMillion: 0.125,
		WCUHour: 0.00065, RCUHour: 0.00013, StorageGBMonth: 0.25,
		Source: "https://aws.amazon.com/dynamodb/pricing/", Compiled: "2025-06"}, *d)
}

// TestDefaultIsFresh checks that no caller can change the prices another
// caller sees.
func TestDefaultIsFresh(t *testing.T) {
	a, err := Default()
	require.NoError(t, err)
	delete(a.Instances, "i3.large")
	a.DynamoDB.WCUHour = 1
	b, err := Default()
	require.NoError(t, err)
	require.Contains(t, b.Instances, "i3.large")
	require.InDelta(t, 0.00065, b.DynamoDB.WCUHour, 1e-12)
}

func TestLoadCatalogueOverride(t *testing.T) {
	cat := load(t, "override.good.yaml")

	replaced, err := cat.Instance("i3.large")
	require.NoError(t, err)
	require.InDelta(t, 0.10, replaced.HourlyUSD, 1e-12)
	require.Equal(t, "reserved, 1 year, no upfront", replaced.Note)
	require.Equal(t, "2025-07-01", replaced.Compiled, "an override's entry carries its own date")
	require.Empty(t, replaced.Source, "replaced whole: the built-in source is not kept")

	added, err := cat.Instance("bare-metal-ax102")
	require.NoError(t, err)
	require.InDelta(t, 120.0, added.Monthly(), 1e-12)

	kept, err := cat.Instance("i3.xlarge")
	require.NoError(t, err)
	require.InDelta(t, 0.312, kept.HourlyUSD, 1e-12)
	require.Equal(t, "2025-06", kept.Compiled)

	require.Len(t, cat.Instances, 22)
	require.Equal(t, "2025-06", cat.Compiled)
	require.Contains(t, cat.Sources, "https://example.com/our-quote-2025-07")
	require.Contains(t, cat.Sources, "https://aws.amazon.com/ec2/pricing/on-demand/")
	require.InDelta(t, 0.625, cat.DynamoDB.WriteRequestUnitsPerMillion, 1e-12, "no dynamodb section: built-in kept")

	old := load(t, "dynamodb-2023.good.yaml")
	require.InDelta(t, 1.25, old.DynamoDB.WriteRequestUnitsPerMillion, 1e-12)
	require.InDelta(t, 0.25, old.DynamoDB.ReadRequestUnitsPerMillion, 1e-12)
	require.Equal(t, "2023-06", old.DynamoDB.Compiled)
	require.Len(t, old.Instances, 21)
}

func TestLoadCatalogueRejects(t *testing.T) {
	for file, want := range map[string][]string{
		"unknown-instance-key.bad.yaml": {`line 5: instances.i3.large: unknown key "hourly_usdd"; did you mean "hourly_usd"?`},
		"unknown-top-key.bad.yaml":      {`line 2: unknown key "instance"; did you mean "instances"?`},
		"unknown-dynamodb-key.bad.yaml": {`line 9: dynamodb: unknown key "storage_ia_gb_month"`},
		"duplicate-instance.bad.yaml":   {`line 5: instances: key "i3.large" given twice`},
		"no-compiled.bad.yaml":          {"compiled: missing"},
		"bad-date.bad.yaml":             {`compiled "last summer": want a date`},
		"both-prices.bad.yaml": {
			"instances.i3.large: want exactly one of hourly_usd and monthly_usd above 0, got 0.1 and 73",
			"instances.c5.large: want exactly one of hourly_usd and monthly_usd above 0, got 0 and 0"},
		"partial-dynamodb.bad.yaml": {"dynamodb: read_request_units_per_million 0: want a price above 0",
			"dynamodb: wcu_hour 0", "dynamodb: rcu_hour 0", "dynamodb: storage_gb_month 0"},
		"wrong-type.bad.yaml": {"line 4", "cannot unmarshal", "two"},
		"negative.bad.yaml":   {"instances.i3.large: memory_gib -1: want a finite number, 0 or more"},
		"empty.bad.yaml":      {"empty price catalogue"},
	} {
		t.Run(file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", file))
			require.NoError(t, err)
			defer f.Close()
			_, err = LoadCatalogue(f)
			require.Error(t, err)
			require.ErrorContains(t, err, "price override")
			for _, w := range want {
				require.ErrorContains(t, err, w)
			}
		})
	}
}

func TestLoadCatalogueFile(t *testing.T) {
	cat, err := LoadCatalogueFile(filepath.Join("testdata", "override.good.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, cat.Instances)

	_, err = LoadCatalogueFile(filepath.Join("testdata", "negative.bad.yaml"))
	require.ErrorContains(t, err, "testdata/negative.bad.yaml: price override: instances.i3.large: memory_gib -1")

	_, err = LoadCatalogueFile("/dev/zero")
	require.EqualError(t, err, "/dev/zero: larger than the 64 MiB limit for input files; is it the right file?")
}

func TestKeyErrorIsTyped(t *testing.T) {
	_, err := ParseCatalogue(strings.NewReader("compiled: \"2025-07\"\ninstances:\n  x:\n    hourly_usd: 1\n    vcpu: 2\n"))
	var ke *KeyError
	require.True(t, errors.As(err, &ke), "got %v", err)
	require.Equal(t, KeyError{Line: 5, Path: "instances.x", Key: "vcpu", Suggestion: "vcpus"}, *ke)
}

func TestUnknownInstance(t *testing.T) {
	cat, err := Default()
	require.NoError(t, err)
	for name, want := range map[string][]string{
		"i3.4xlarge":      {"i3.2xlarge", "i3.xlarge", "i3.large"},
		"I4i.Large":       {"i4i.large"},
		"n2d-standard-32": {"n2d-standard-2", "n2d-standard-4", "n2d-standard-8", "n2d-standard-16"},
		"m7g.medium":      nil,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := cat.Instance(name)
			var u *UnknownInstanceError
			require.True(t, errors.As(err, &u))
			require.Equal(t, name, u.Name)
			require.Equal(t, 21, u.Known)
			for _, w := range want {
				require.Contains(t, u.Close, w)
			}
			if want == nil {
				require.Empty(t, u.Close)
			}
			require.ErrorContains(t, err, `instance "`+name+`" is not in the price catalogue (21 entries)`)
			require.ErrorContains(t, err, "add it with a price override file")
		})
	}
	_, err = cat.Instance("i3.4xlarge")
	require.EqualError(t, err, `instance "i3.4xlarge" is not in the price catalogue (21 entries); `+
		`close: i3.2xlarge, i3.xlarge, i3.large; add it with a price override file`)
}

func load(t *testing.T, file string) *Catalogue {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", file))
	require.NoError(t, err)
	defer f.Close()
	cat, err := LoadCatalogue(f)
	require.NoError(t, err)
	return cat
}
