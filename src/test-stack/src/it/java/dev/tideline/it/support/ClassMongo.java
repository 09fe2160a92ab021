package dev.tideline.it.support;

import com.mongodb.client.MongoClient;
import dev.tideline.standin.MongoFixture;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A MongoDB for one test class ({@link MongoFixture#withOplog()}: {@code MONGO_URI}, a Testcontainers replica set
 * or the stand-in), opened before its first test and closed after its last, whatever they did:
 * {@code @RegisterExtension static final ClassMongo destination = new ClassMongo();}
 */
public final class ClassMongo implements BeforeAllCallback, AfterAllCallback {
    private MongoFixture fixture;

    @Override
    public void beforeAll(ExtensionContext context) {
        fixture = MongoFixture.withOplog();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (fixture != null) {
            fixture.close();
            fixture = null;
        }
    }

    public MongoClient client() {
        return open().client();
    }

    public String uri() {
        return open().uri();
    }

    private MongoFixture open() {
        if (fixture == null) {
            throw new IllegalStateException("ClassMongo is used outside the run of the test class that registers it");
        }
        return fixture;
    }
}
