package app;

public class Service {
    private final Config config = new Config();

    void start(String port) {
        try {
            config.load(port);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("service cannot start", e);
        }
    }

    public static void main(String[] args) {
        new Service().start("80a");
    }
}
