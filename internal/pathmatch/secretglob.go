package pathmatch

import "sync"

// secretGlobPatterns are the secret files of [IsSecret] as deny patterns,
// for globs: a glob may read a secret when one of them may match it.
var secretGlobPatterns = sync.OnceValue(func() []*Pattern {
	var out []*Pattern
	for _, s := range []string{
		"/**/.env", "/**/.env.*", "/**/.envrc", "/**/.netrc", "/**/.git-credentials", "/**/.npmrc",
		"/**/.pypirc", "/**/.aws/credentials", "/**/.docker/config.json", "/**/.kube/config",
		"/**/.ssh/*", "/**/.gnupg/**", "/**/*.pem", "/**/*.key", "/**/*.p12", "/**/*.pfx",
	} {
		p, err := Compile(s, ForDeny, "/")
		if err != nil {
			panic("pathmatch: secret pattern " + s + ": " + err.Error())
		}
		out = append(out, p)
	}
	return out
})

// GlobMayBeSecret reports, conservatively, whether the glob g (absolute, or
// relative to cwd) may name a secret file (SPEC §7). dots says whether its
// wildcards produce names starting with '.' (a read call's glob) or not
// (bash without dotglob). The examples IsSecret exempts (.env.example,
// *.pub) are not told apart: a glob that may name .env.* may be a secret.
func GlobMayBeSecret(g, cwd, home string, dots bool) bool {
	for _, p := range secretGlobPatterns() {
		if p.mayMatchGlob(g, cwd, home, dots) {
			return true
		}
	}
	return false
}
