package pathmatch

import (
	"errors"
	"testing"
)

func TestProtection(t *testing.T) {
	pr, err := NewProtection("/home/u/.config/toolgate", []string{".secrets", "*.tfstate", "deploy/keys/**", "/infra/**"}, nil, tRoot)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path  string
		entry string // "" = not protected
	}{
		{"/p/.git/config", ".git"},
		{"/p/.GIT/config", ".git"},
		{"/p/.git./hooks/x", ".git"},
		{"/p/.git /hooks/x", ".git"},
		{"/p/.git::$INDEX_ALLOCATION/hooks/x", ".git"},
		{`/p\.git\hooks\x`, ".git"},
		{"/p/.git", ".git"},
		{"/p/.gitignore", ""},
		{"/p/.github/workflows/ci.yml", ""},
		{"/p/src/.git/HEAD", ".git"},
		{"/home/u/.ssh/authorized_keys", ".ssh"},
		{"/home/u/.config/git/config", ".config/git"},
		{"/home/u/.CONFIG/Git/ignore", ".config/git"},
		{"/home/u/.config/gitx", ""},
		{"/srv/h/.config/toolgate/policy.yaml", ".config/toolgate"},
		{"/srv/other/.Config/TOOLGATE", ".config/toolgate"},
		{"/home/u/.config/toolgate-x", ""},
		{"/home/u/git/x", ""},
		{"/home/u/.bashrc", ".bashrc"},
		{"/home/u/.zshenv", ".zshenv"},
		{"/p/.vscode/settings.json", ".vscode"},
		{"/p/.env", ".env"},
		{"/p/.env.local", ".env.*"},
		{"/p/.ENV.Production", ".env.*"},
		{"/p/.env.example", ""},
		{"/p/.env.sample", ""},
		{"/p/.env.template", ""},
		{"/p/.env.dist", ""},
		{"/p/.env.local.example", ""},
		{"/p/.envrc", ".envrc"},
		{"/p/.env.", ".env"},
		{"/p/.mcp.json", ".mcp.json"},
		{"/p/mcp.json", ""},
		{"/etc/toolgate/policy.yaml", "/etc/toolgate"},
		{"/ETC/toolgate./policy.yaml", "/etc/toolgate"},
		{"/etc/toolgatex", ""},
		{"/home/u/.config/toolgate/policy.toml", "/home/u/.config/toolgate"},
		{"/p/a/.secrets/x", ".secrets"},
		{"/p/a/.SECRETS", ".secrets"},
		{"/p/state/prod.TFSTATE", "*.tfstate"},
		{"/w/proj/deploy/keys/a", "deploy/keys/**"},
		{"/w/proj/x/deploy/keys/a", "deploy/keys/**"},
		{"/r/infra/main.tf", "/infra/**"},
		{"/p/src/main.go", ""},
		{"/", ""},
		{"/p/a/../.git/x", ".git"},
		{"/p/.git/../src/x", ""},
		{"sub/.git/config", ".git"}, // unplaceable: components still count
	}
	for _, tt := range tests {
		entry, ok := pr.Check(tt.path, tCwd, tHome)
		if ok != (tt.entry != "") || entry != tt.entry {
			t.Errorf("Check(%q) = %q, %v; want %q", tt.path, entry, ok, tt.entry)
		}
	}
}

func TestProtectionRemovals(t *testing.T) {
	pr, err := NewProtection("", nil, []string{".idea", ".config/git", ".env.*"}, tRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/p/.idea/x", "/h/.config/git/config", "/p/.env.local"} {
		if e, ok := pr.Check(p, tCwd, tHome); ok {
			t.Errorf("Check(%q) = %q after removal", p, e)
		}
	}
	if _, ok := pr.Check("/p/.env", tCwd, tHome); !ok {
		t.Error(".env no longer protected")
	}
	if _, ok := pr.Check("/etc/toolgate/x", tCwd, tHome); !ok {
		t.Error("/etc/toolgate no longer protected")
	}
	var pe *ProtectionError
	if _, err := NewProtection("", nil, []string{".gitt"}, tRoot); !errors.As(err, &pe) {
		t.Errorf("unknown removal: %v", err)
	}
	if _, err := NewProtection("", []string{"a["}, nil, tRoot); !errors.As(err, &pe) {
		t.Errorf("bad addition: %v", err)
	}
	if _, err := NewProtection("rel/dir", nil, nil, tRoot); !errors.As(err, &pe) {
		t.Errorf("relative config dir: %v", err)
	}
	var nilPr *Protection
	if _, ok := nilPr.Check("/p/.git", "/", "/"); ok {
		t.Error("nil Protection reported a match")
	}
}

func TestIsSecret(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"/p/.env", true},
		{"/p/.ENV", true},
		{"/p/.env.", true},
		{"/p/.env::$DATA", true},
		{`/p\.env`, true},
		{"/p/.env.local", true},
		{"/p/.env.production.local", true},
		{"/p/.env.example", false},
		{"/p/.env.sample", false},
		{"/p/.ENV.TEMPLATE", false},
		{"/p/.env.dist", false},
		{"/p/.env/lib/site.py", false}, // a virtualenv called .env
		{"/p/.envrc", true},
		{"/p/.environment", false},
		{"/p/env", false},
		{"/h/.ssh/id_ed25519", true},
		{"/h/.ssh/keys/deploy", true},
		{"/h/.SSH/ID_RSA", true},
		{"/h/.ssh/id_ed25519.pub", false},
		{"/h/.ssh/known_hosts", false},
		{"/h/.ssh/known_hosts.old", false},
		{"/h/.ssh/authorized_keys", false},
		{"/h/.ssh/config", false},
		{"/h/.ssh", false},
		{"/h/.gnupg/private-keys-v1.d/x.key", true},
		{"/h/.gnupg/pubring.kbx", true},
		{"/h/.gnupg", false},
		{"/h/.aws/credentials", true},
		{"/h/.aws/config", false},
		{"/h/credentials", false},
		{"/h/.netrc", true},
		{"/h/.git-credentials", true},
		{"/h/.npmrc", true},
		{"/h/.pypirc", true},
		{"/h/.docker/config.json", true},
		{"/h/config.json", false},
		{"/h/.kube/config", true},
		{"/h/.kube/cache/x", false},
		{"/p/tls/server.pem", true},
		{"/p/tls/server.KEY", true},
		{"/p/tls/server.key.", true},
		{"/p/cert.p12", true},
		{"/p/cert.pfx", true},
		{"/p/keyboard.go", false},
		{"/p/monkey", false},
		{"/p/src/main.go", false},
		{"/", false},
		{"/p/x/../.env", true},
	}
	for _, tt := range tests {
		if got := IsSecret(tt.path); got != tt.want {
			t.Errorf("IsSecret(%q) = %v; want %v", tt.path, got, tt.want)
		}
	}
}
