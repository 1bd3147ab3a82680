package urlmatch

import "testing"

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("https://api.example.com/v1/x?y=1"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseIDN(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("https://user@bücher.example:8443/a/../b?q=ü"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDomainMatch(b *testing.B) {
	d, err := CompileDomain("*.example.com")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if !d.Match("api.eu.example.com") {
			b.Fatal("no match")
		}
	}
}

func BenchmarkDomainMatchGlob(b *testing.B) {
	d, err := CompileDomain("api-*.example.com")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if !d.Match("API-v1.example.com.") {
			b.Fatal("no match")
		}
	}
}

func BenchmarkURLPatternMatch(b *testing.B) {
	p, err := CompileURL("https://api.example.com/v1/*", true)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if !p.Match("https://api.example.com/v1/x?y=1") {
			b.Fatal("no match")
		}
	}
}
