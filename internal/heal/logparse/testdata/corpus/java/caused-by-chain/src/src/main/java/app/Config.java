package app;

class Config {
    int port;

    void load(String raw) {
        try {
            port = parsePort(raw);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad port " + raw, e);
        }
    }

    static int parsePort(String raw) {
        return Integer.parseInt(raw.trim());
    }
}
