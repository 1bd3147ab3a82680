package serve_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	"github.com/toolgate/toolgate/serve"
)

// A receiver verifies each delivery before it acts on it. The delivery
// here is signed by hand, the way toolgate serve signs one, to show the
// scheme to receivers written in other languages.
func ExampleVerifyWebhook() {
	secret := []byte("the contents of --webhook-secret-file")
	receiver := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "cannot read the body", http.StatusBadRequest)
			return
		}
		if err := serve.VerifyWebhook(secret, r.Header, body, time.Now(), 5*time.Minute); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized) // a 4xx is not retried
			return
		}
		// Act once per delivery id: a retried delivery keeps its id.
		fmt.Println("accepted", r.Header.Get(serve.WebhookDeliveryHeader))
	})

	body := `{"type":"approval.requested","delivery":"dl_example","approval":{"id":"ap_1"}}`
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, secret)
	io.WriteString(mac, "v1:"+ts+":"+body)
	for _, b := range []string{body, strings.Replace(body, "ap_1", "ap_2", 1)} {
		req := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(b))
		req.Header.Set(serve.WebhookDeliveryHeader, "dl_example")
		req.Header.Set(serve.WebhookTimestampHeader, ts)
		req.Header.Set(serve.WebhookSignatureHeader, "v1="+hex.EncodeToString(mac.Sum(nil)))
		rec := httptest.NewRecorder()
		receiver.ServeHTTP(rec, req)
		fmt.Println(strings.TrimSpace(fmt.Sprint(rec.Code, " ", rec.Body.String())))
	}
	// Output:
	// accepted dl_example
	// 200
	// 401 webhook: the signature does not match (another secret, or the body or timestamp was changed)
}
