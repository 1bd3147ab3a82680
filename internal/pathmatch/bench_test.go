package pathmatch

import "testing"

func benchMatch(b *testing.B, pat string, mode Mode, path string) {
	p, err := Compile(pat, mode, tRoot)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		p.Match(path, tCwd, tHome)
	}
}

func BenchmarkMatchAllowAnchored(b *testing.B) {
	benchMatch(b, "src/**", ForAllow, "/w/proj/src/internal/pkg/file.go")
}

func BenchmarkMatchDenyAnyDepth(b *testing.B) {
	benchMatch(b, "src/**", ForDeny, "/w/proj/lib/src/internal/pkg/file.go")
}

func BenchmarkMatchDenyBareName(b *testing.B) {
	benchMatch(b, "*.pem", ForDeny, "/w/proj/deploy/tls/certs/server.PEM")
}

func BenchmarkMatchDenyMiss(b *testing.B) {
	benchMatch(b, "./.env", ForDeny, "/w/proj/src/internal/pkg/file.go")
}

func BenchmarkMatchDenySpellings(b *testing.B) {
	benchMatch(b, "./.env", ForDeny, "/w/proj/.env::$DATA")
}

func BenchmarkIsSecret(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		IsSecret("/w/proj/src/internal/pkg/file.go")
	}
}

func BenchmarkIsSecretHit(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		IsSecret("/home/u/.ssh/id_ed25519")
	}
}

func BenchmarkProtectionCheck(b *testing.B) {
	pr, err := NewProtection("/home/u/.config/toolgate", []string{".secrets"}, nil, tRoot)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		pr.Check("/w/proj/src/internal/pkg/file.go", tCwd, tHome)
	}
}

func BenchmarkProtectionCheckHit(b *testing.B) {
	pr, err := NewProtection("/home/u/.config/toolgate", nil, nil, tRoot)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		pr.Check("/w/proj/.git/hooks/pre-commit", tCwd, tHome)
	}
}
