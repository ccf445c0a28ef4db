module example.com/banner

go 1.22

require github.com/acme-tools/figlet v1.4.2
