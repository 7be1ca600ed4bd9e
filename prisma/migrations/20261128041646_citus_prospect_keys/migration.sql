-- DropForeignKey
ALTER TABLE "ProspectListMember" DROP CONSTRAINT "ProspectListMember_listId_fkey";

-- DropForeignKey
ALTER TABLE "ProspectListMember" DROP CONSTRAINT "ProspectListMember_prospectId_fkey";

-- DropForeignKey
ALTER TABLE "ProspectTag" DROP CONSTRAINT "ProspectTag_prospectId_fkey";

-- DropForeignKey
ALTER TABLE "ProspectTag" DROP CONSTRAINT "ProspectTag_tagId_fkey";

-- AlterTable
ALTER TABLE "Prospect" DROP CONSTRAINT "Prospect_pkey",
ADD CONSTRAINT "Prospect_pkey" PRIMARY KEY ("id", "organizationId");

-- AlterTable
ALTER TABLE "ProspectList" DROP CONSTRAINT "ProspectList_pkey",
ADD CONSTRAINT "ProspectList_pkey" PRIMARY KEY ("id", "organizationId");

-- AlterTable: the distribution column, filled from the list and the tag
-- (docs/scaling.md#ready-for-citus).
ALTER TABLE "ProspectListMember" ADD COLUMN "organizationId" TEXT;
UPDATE "ProspectListMember" m SET "organizationId" = l."organizationId" FROM "ProspectList" l WHERE l.id = m."listId";
ALTER TABLE "ProspectListMember" DROP CONSTRAINT "ProspectListMember_pkey",
ALTER COLUMN "organizationId" SET NOT NULL,
ADD CONSTRAINT "ProspectListMember_pkey" PRIMARY KEY ("listId", "prospectId", "organizationId");

-- AlterTable
ALTER TABLE "ProspectTag" ADD COLUMN "organizationId" TEXT;
UPDATE "ProspectTag" pt SET "organizationId" = t."organizationId" FROM "Tag" t WHERE t.id = pt."tagId";
ALTER TABLE "ProspectTag" DROP CONSTRAINT "ProspectTag_pkey",
ALTER COLUMN "organizationId" SET NOT NULL,
ADD CONSTRAINT "ProspectTag_pkey" PRIMARY KEY ("prospectId", "tagId", "organizationId");

-- AlterTable
ALTER TABLE "Tag" DROP CONSTRAINT "Tag_pkey",
ADD CONSTRAINT "Tag_pkey" PRIMARY KEY ("id", "organizationId");

-- AddForeignKey
ALTER TABLE "ProspectListMember" ADD CONSTRAINT "ProspectListMember_listId_organizationId_fkey" FOREIGN KEY ("listId", "organizationId") REFERENCES "ProspectList"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ProspectListMember" ADD CONSTRAINT "ProspectListMember_prospectId_organizationId_fkey" FOREIGN KEY ("prospectId", "organizationId") REFERENCES "Prospect"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ProspectTag" ADD CONSTRAINT "ProspectTag_prospectId_organizationId_fkey" FOREIGN KEY ("prospectId", "organizationId") REFERENCES "Prospect"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ProspectTag" ADD CONSTRAINT "ProspectTag_tagId_organizationId_fkey" FOREIGN KEY ("tagId", "organizationId") REFERENCES "Tag"("id", "organizationId") ON DELETE CASCADE ON UPDATE CASCADE;
