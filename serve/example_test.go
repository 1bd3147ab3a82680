package serve_test

import (
	"fmt"

	"github.com/toolgate/toolgate/serve"
)

// A token file line stores the token's SHA-256, never the token.
func ExampleTokenLine() {
	fmt.Println(serve.TokenLine(serve.RoleApprover, "alice", "tg_example"))
	// Output:
	// approver alice sha256:849bcdf2697a91c638e19b84148f16dfc88df7d48e384922ea779360f0837bc4
}

// Visible shows what a person must see: a right-to-left override cannot
// disguise a file name.
func ExampleVisible() {
	fmt.Println(serve.Visible("cat \u202egnp.exe"))
	// Output:
	// cat \u202egnp.exe
}
