// SPDX-License-Identifier: Apache-2.0

// Command trainer-consumer prints the version of the libtrainer.so it runs with.
package main

import (
	"fmt"

	trainer "libtrainer.dev/trainer"
)

func main() {
	fmt.Println("libtrainer", trainer.Version())
}
