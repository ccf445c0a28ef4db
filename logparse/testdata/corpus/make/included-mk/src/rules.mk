lint:
  @echo lint
