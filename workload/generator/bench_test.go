package generator_test

import (
	"testing"

	"github.com/dbarena/dbarena/workload/generator"
)

func BenchmarkNext(b *testing.B) {
	must := func(g generator.Int, err error) generator.Int {
		if err != nil {
			b.Fatal(err)
		}
		return g
	}
	gens := []struct {
		name string
		g    generator.Int
	}{
		{"dist=uniform", must(generator.NewUniform(0, 999_999))},
		{"dist=zipfian", must(generator.NewZipfian(0, 999_999, generator.ZipfianConstant))},
		{"dist=scrambled", must(generator.NewScrambledZipfian(0, 999_999))},
		{"dist=hotspot", must(generator.NewHotspot(0, 999_999, 0.2, 0.8))},
		{"dist=latest", generator.NewSkewedLatest(fixedLast(999_999))},
		{"dist=exponential", must(generator.NewExponential(95, 857_142))},
	}
	for _, g := range gens {
		b.Run(g.name, func(b *testing.B) {
			r := newRand(1)
			b.ReportAllocs()
			for b.Loop() {
				g.g.Next(r)
			}
		})
	}
	b.Run("dist=discrete", func(b *testing.B) {
		d, _ := generator.NewDiscrete([]float64{0.5, 0.5, 0, 0, 0, 0})
		r := newRand(1)
		b.ReportAllocs()
		for b.Loop() {
			d.Next(r)
		}
	})
}
