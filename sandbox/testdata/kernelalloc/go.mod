module example.com/kernelalloc

go 1.26.8
