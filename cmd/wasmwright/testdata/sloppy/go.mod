module example.com/sloppy

go 1.26.8
