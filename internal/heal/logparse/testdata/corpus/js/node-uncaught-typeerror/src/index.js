const config = require("./config");

function port(cfg) {
  return cfg.server.port;
}

console.log(port(config));
