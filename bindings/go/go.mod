module libtrainer.dev/trainer

go 1.19
