package config

import (
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate"
	"gopkg.in/yaml.v3"
)

// maxYAMLNodes bounds the nodes a YAML file may expand to through aliases.
const maxYAMLNodes = 1 << 20

type yamlDecoder struct {
	file   string
	src    string
	diags  *toolgate.Diagnostics
	budget int
}

var yamlParserErrRE = regexp.MustCompile(`^(did not find expected (<document start>|<stream-start>|node content|key|'-' indicator|',' or '\]'|',' or '\}')|found (duplicate|incompatible|undefined) )`)

var yamlLineRE = regexp.MustCompile(`(?:yaml: )?line (\d+): (.*)`)

func decodeYAML(file string, data []byte, diags *toolgate.Diagnostics) *node {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return &node{kind: kindMap, pos: toolgate.Position{File: file, Line: 1, Column: 1}}
		}
		yamlSyntax(file, err, diags)
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		diags.Errorf(toolgate.Position{File: file, Line: extra.Line, Column: extra.Column}, "syntax", "a configuration file holds one YAML document; found another")
		return nil
	} else if err != io.EOF {
		yamlSyntax(file, err, diags)
		return nil
	}
	// Aliases may expand a file to no more values than four per byte (plus
	// some room), which bounds the work of a "billion laughs" file.
	d := &yamlDecoder{file: file, src: string(data), diags: diags, budget: min(4*len(data)+10000, maxYAMLNodes)}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return &node{kind: kindMap, pos: toolgate.Position{File: file, Line: 1, Column: 1}}
		}
		root = root.Content[0]
	}
	n, ok := d.convert(root, 0)
	if !ok {
		return nil
	}
	return n
}

func yamlSyntax(file string, err error, diags *toolgate.Diagnostics) {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	pos := toolgate.Position{File: file}
	pos.Line, pos.Column = 1, 1
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		pos.Line, _ = strconv.Atoi(m[1])
		msg = m[2]
		// yaml.v3 reports a parser error's line 0-based (the line where the
		// construct began), a scanner error's 1-based; only the line is known.
		if yamlParserErrRE.MatchString(msg) {
			pos.Line++
		}
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	diags.Errorf(pos, "syntax", "YAML syntax error: %s", msg)
}

func (d *yamlDecoder) pos(y *yaml.Node) toolgate.Position {
	p := toolgate.Position{File: d.file, Line: y.Line, Column: y.Column}
	if y.Kind != yaml.ScalarNode {
		return p
	}
	switch {
	case y.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		p.Column++
	case y.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		// The text starts on the first non-blank line after the indicator.
		off := lineOffset(d.src, y.Line+1, 1)
		for l := y.Line + 1; off >= 0 && off < len(d.src); l++ {
			end := strings.IndexByte(d.src[off:], '\n')
			line := d.src[off:]
			if end >= 0 {
				line = d.src[off : off+end]
			}
			if t := strings.TrimLeft(line, " \t\r"); t != "" {
				return toolgate.Position{File: d.file, Line: l, Column: len([]rune(line[:len(line)-len(t)])) + 1}
			}
			if end < 0 {
				break
			}
			off += end + 1
		}
	}
	return p
}

func (d *yamlDecoder) fail(y *yaml.Node, format string, args ...any) (*node, bool) {
	d.diags.Errorf(toolgate.Position{File: d.file, Line: y.Line, Column: y.Column}, "syntax", format, args...)
	return nil, false
}

func (d *yamlDecoder) convert(y *yaml.Node, depth int) (*node, bool) {
	d.budget--
	if d.budget < 0 {
		if d.budget == -1 {
			d.fail(y, "YAML file expands to too many values (aliases)")
		}
		return nil, false
	}
	if depth > maxDepth {
		return d.fail(y, "values nested more than %d deep", maxDepth)
	}
	pos := d.pos(y)
	switch y.Kind {
	case yaml.AliasNode:
		if y.Alias == nil {
			return d.fail(y, "unknown YAML alias")
		}
		n, ok := d.convert(y.Alias, depth+1)
		if !ok {
			return nil, false
		}
		// Strings keep their own position; a container is reported at the alias.
		c := *n
		c.pos = toolgate.Position{File: d.file, Line: y.Line, Column: y.Column}
		return &c, true
	case yaml.MappingNode:
		n := &node{kind: kindMap, pos: pos}
		seen := make(map[string]bool, len(y.Content)/2)
		ok := true
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, v := y.Content[i], y.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				d.fail(k, "a mapping key must be a scalar")
				ok = false
				continue
			}
			if k.Tag == "!!merge" || (k.Value == "<<" && k.Style == 0) {
				d.fail(k, "YAML merge keys (<<) are not supported; write the keys out")
				ok = false
				continue
			}
			kpos := d.pos(k)
			if seen[k.Value] {
				d.diags.Errorf(kpos, "duplicate-key", "duplicate key %q", k.Value)
				ok = false
				continue
			}
			seen[k.Value] = true
			vn, vok := d.convert(v, depth+1)
			if !vok {
				ok = false
				continue
			}
			n.entries = append(n.entries, &entry{key: k.Value, keyPos: kpos, value: vn})
		}
		return n, ok
	case yaml.SequenceNode:
		n := &node{kind: kindList, pos: pos, items: make([]*node, 0, len(y.Content))}
		ok := true
		for _, it := range y.Content {
			vn, vok := d.convert(it, depth+1)
			if !vok {
				ok = false
				continue
			}
			n.items = append(n.items, vn)
		}
		return n, ok
	case yaml.ScalarNode:
		return d.scalar(y, pos)
	case yaml.DocumentNode:
		return d.fail(y, "nested YAML document")
	}
	return d.fail(y, "unsupported YAML node")
}

func (d *yamlDecoder) scalar(y *yaml.Node, pos toolgate.Position) (*node, bool) {
	switch y.ShortTag() {
	case "!!str":
		return &node{kind: kindString, pos: pos, text: y.Value}, true
	case "!!null":
		return &node{kind: kindNull, pos: pos}, true
	case "!!bool":
		var b bool
		if err := y.Decode(&b); err != nil {
			return d.fail(y, "invalid boolean %q", y.Value)
		}
		return &node{kind: kindBool, pos: pos, text: strconv.FormatBool(b)}, true
	case "!!int":
		var i int64
		if err := y.Decode(&i); err != nil {
			var u uint64
			if err := y.Decode(&u); err != nil {
				return d.fail(y, "invalid integer %q", y.Value)
			}
			return &node{kind: kindInt, pos: pos, text: strconv.FormatUint(u, 10)}, true
		}
		return &node{kind: kindInt, pos: pos, text: strconv.FormatInt(i, 10)}, true
	case "!!float":
		var f float64
		if err := y.Decode(&f); err != nil {
			return d.fail(y, "invalid number %q", y.Value)
		}
		return &node{kind: kindFloat, pos: pos, text: strconv.FormatFloat(f, 'g', -1, 64)}, true
	case "!!timestamp":
		return &node{kind: kindTime, pos: pos, text: y.Value}, true
	}
	return d.fail(y, "unsupported YAML tag %s", y.Tag)
}
