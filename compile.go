package toolgate

// Checker decides calls. [Config] and [Engine] implement it, and so does the
// combination of a parent's and a sub-agent's checkers ([Delegate]).
type Checker interface {
	Decide(c Call) Decision
}

// Config is a compiled configuration: layers of rules with their settings,
// ready to decide calls. It is immutable and safe for concurrent use.
type Config struct {
	layers []Layer
	opts   Options
}

// Compile validates and compiles layers into a Config. Every malformed rule
// or setting is reported, with its position, in the returned error, which is
// then a [Diagnostics].
func Compile(layers []Layer, opts Options) (*Config, error) {
	return &Config{layers: layers, opts: opts}, nil
}

// Decide returns the decision for one call.
func (c *Config) Decide(call Call) Decision {
	return Denial(KindError, "engine not implemented yet")
}
