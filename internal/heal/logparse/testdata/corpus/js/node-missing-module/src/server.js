const express = require("expresso");

express().listen(3000);
