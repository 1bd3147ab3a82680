package urlmatch_test

import (
	"fmt"

	"github.com/toolgate/toolgate/internal/urlmatch"
)

func ExampleParse() {
	// The WHATWG reading finds 127.0.0.1; net/url refuses the URL, so it
	// can be denied by a rule for 127.0.0.1 but never allowed.
	t, err := urlmatch.Parse(`HTTPS://trusted.com@0x7f.1:443\admin`)
	fmt.Println(t.Hosts, t.URLs, err)
	// Output: [127.0.0.1] [https://127.0.0.1/admin] the Go net/url parser rejects the URL (invalid port ":443\\admin" after host), so its readings disagree
}

func ExampleParse_scheme() {
	t, err := urlmatch.Parse("ftp://files.example.com/x")
	fmt.Println(t.Hosts)
	fmt.Println(err)
	// Output:
	// [files.example.com]
	// only http and https URLs can be allowed, not "ftp:"
}

func ExampleDomain_Match() {
	d, _ := urlmatch.CompileDomain("*.example.com")
	for _, h := range []string{"api.example.com", "a.b.example.com", "example.com", "evilexample.com"} {
		fmt.Println(h, d.Match(h))
	}
	// Output:
	// api.example.com true
	// a.b.example.com true
	// example.com false
	// evilexample.com false
}

func ExampleURLPattern_Match() {
	p, _ := urlmatch.CompileURL("https://api.example.com/v1/*", false)
	t, _ := urlmatch.Parse("https://user@API.example.com:443/v1/items?page=2")
	fmt.Println(p, t.URLs[0], p.Match(t.URLs[0]))
	// Output: https://api.example.com/v1/* https://api.example.com/v1/items?page=2 true
}
