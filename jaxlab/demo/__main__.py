from jaxlab.demo.cli import main

main()
