// A program of its own that uses the Go binding, as an application does (docs/bindings.md,
// "Go"): a module of its own, the binding through a replace directive. It finds libtrainer.so
// by the run-time search path that pkg-config's libtrainer module gives cgo.
module example.com/trainer-consumer

go 1.19

require libtrainer.dev/trainer v0.1.0

replace libtrainer.dev/trainer => ../..
