package io.karrow.bench.nexmark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Registers a schema of any type with a Confluent-compatible registry ({@code POST /subjects/S/versions}). */
final class Registry {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Registry() {}

    /** Registers {@code schema} of {@code type} (AVRO, PROTOBUF, JSON) under {@code subject}; returns its id. */
    static int register(String url, String subject, String type, String schema) throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode().put("schema", schema);
        if (!type.equals("AVRO")) {
            body.put("schemaType", type);
        }
        HttpRequest request = HttpRequest.newBuilder(URI.create(url.replaceAll("/+$", "") + "/subjects/"
                        + URLEncoder.encode(subject, StandardCharsets.UTF_8) + "/versions"))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                .build();
        HttpResponse<String> response = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build()
                .send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("registering " + type + " schema under " + subject + " at " + url + " failed: HTTP "
                    + response.statusCode() + " " + response.body());
        }
        JsonNode id = JSON.readTree(response.body()).get("id");
        if (id == null || !id.canConvertToInt()) {
            throw new IOException("the registry answered without an id: " + response.body());
        }
        return id.asInt();
    }
}
