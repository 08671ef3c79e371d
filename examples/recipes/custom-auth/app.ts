/** The articles API, secured by API keys and the recipe's own policies instead of the auth plugin. */
import { Application, CrudRouter, type OrmAdapter } from '../../../lib/index.js';
import { API_KEY_SCHEME, apiKeyAuth } from './api-key.js';
import { Article, Writer } from './models.js';
import { adminOnly, ownerOrAdmin, ownerOrAdminHidingDrafts, publishedOrOwner } from './policies.js';

/** `/articles` (public reads of published articles, writes by their owners) and `/writers` (key holders only). */
export function createArticlesApp(adapter: OrmAdapter): Application {
  const app = new Application({ title: 'Articles', adapter });
  app.openapi.addSecurityScheme(API_KEY_SCHEME, { type: 'apiKey', in: 'header', name: 'X-API-Key' });
  const signedIn = apiKeyAuth();
  const maybeSignedIn = apiKeyAuth({ optional: true });

  new CrudRouter({
    model: Article,
    policy: {
      GET: publishedOrOwner(maybeSignedIn),
      POST: ownerOrAdmin(signedIn),
      PUT: ownerOrAdminHidingDrafts(signedIn),
      DELETE: ownerOrAdminHidingDrafts(signedIn),
    },
  }).register_routes(app);

  new CrudRouter({
    model: Writer,
    secure: true,
    auth_dependency: signedIn,
    policy: { POST: adminOnly(signedIn), PUT: adminOnly(signedIn), DELETE: adminOnly(signedIn) },
  }).register_routes(app);
  return app;
}
