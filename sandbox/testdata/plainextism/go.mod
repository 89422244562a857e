module example.com/plainextism

go 1.26.8
