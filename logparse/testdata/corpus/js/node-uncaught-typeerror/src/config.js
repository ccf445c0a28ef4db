module.exports = { host: 'x' };
