//go:build linux

package bashdiff

import (
	"bytes"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// pieces returns smaller command strings taken from cmd: each statement of
// a list, each side of && and ||, each part of a pipeline, the body of a
// subshell, group, function or control structure.
func pieces(cmd string) []string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil
	}
	pr := syntax.NewPrinter()
	var out []string
	print := func(n syntax.Node) {
		var b bytes.Buffer
		if pr.Print(&b, n) == nil {
			if s := strings.TrimSpace(b.String()); s != "" && len(s) < len(cmd) {
				out = append(out, s)
			}
		}
	}
	var stmts func([]*syntax.Stmt)
	stmts = func(ss []*syntax.Stmt) {
		for _, s := range ss {
			if len(ss) > 1 {
				print(s)
			}
			switch c := s.Cmd.(type) {
			case *syntax.BinaryCmd:
				print(c.X)
				print(c.Y)
			case *syntax.Subshell:
				stmts(c.Stmts)
			case *syntax.Block:
				stmts(c.Stmts)
			case *syntax.IfClause:
				stmts(c.Then)
				stmts(c.Cond)
			case *syntax.WhileClause:
				stmts(c.Do)
			case *syntax.ForClause:
				stmts(c.Do)
			case *syntax.FuncDecl:
				print(c.Body)
			case *syntax.CaseClause:
				for _, it := range c.Items {
					stmts(it.Stmts)
				}
			}
		}
	}
	stmts(f.Stmts)
	return out
}

// minimize shrinks a failing command while it still fails with the same
// class.
func minimize(s *Sandbox, cmd string, class string) string {
	for rounds := 0; rounds < 20; rounds++ {
		improved := false
		for _, p := range pieces(cmd) {
			r := check(s, p)
			for _, f := range r.fails {
				if f.Class == class {
					cmd, improved = p, true
					break
				}
			}
			if improved {
				break
			}
		}
		if !improved {
			break
		}
	}
	return cmd
}
