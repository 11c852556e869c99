// Serves the two builds on 127.0.0.1 (free ports) for the whole suite; the returned function stops
// them. URLs reach the workers through the environment.
import { startServer } from '../../scripts/serve.mjs';
import { mainBuild, algoliaBuild } from '../build-site.mjs';

export default async function globalSetup() {
  const main = await startServer({ root: mainBuild });
  const algolia = await startServer({ root: algoliaBuild });
  process.env.PORTAL_URL = main.url;
  process.env.PORTAL_ALGOLIA_URL = algolia.url;
  return async () => {
    await main.close();
    await algolia.close();
  };
}
