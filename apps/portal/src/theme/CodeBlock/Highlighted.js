// theme-classic's CodeBlock, with the extra Prism languages registered the way its own client module
// would (Prism components mutate the global Prism while they load).
import { Prism } from 'prism-react-renderer';
import siteConfig from '@generated/docusaurus.config';
import CodeBlock from '@theme-original/CodeBlock';

const previous = globalThis.Prism;
globalThis.Prism = Prism;
for (const lang of siteConfig.themeConfig.prism.additionalLanguages) {
  // eslint-disable-next-line global-require, import/no-dynamic-require
  require(`prismjs/components/prism-${lang}`);
}
if (previous === undefined) delete globalThis.Prism;
else globalThis.Prism = previous;

export default CodeBlock;
