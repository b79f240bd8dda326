package flaky_test

import (
	"fmt"
	"net/http"

	"github.com/backofflab/backofflab/lab/flaky"
)

// A server that fails its first two requests, asked three times.
func ExampleNew() {
	s := flaky.New(2)
	defer s.Close()
	for range 3 {
		resp, err := http.Get(s.URL)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
		fmt.Println(resp.Status)
	}
	fmt.Println("requests received:", s.Requests())
	// Output:
	// 503 Service Unavailable
	// 503 Service Unavailable
	// 200 OK
	// requests received: 3
}
