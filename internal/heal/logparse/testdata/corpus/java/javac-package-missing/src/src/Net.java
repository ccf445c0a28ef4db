import org.apache.http.client.HttpClient;

public class Net {
    HttpClient client;
}
